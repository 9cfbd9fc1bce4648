/**
 * The Lua scripts that keep limits in the shared store (Redis or Valkey), each one atomic and one
 * round trip. Time is the store's own (TIME), never a replica's clock: replicas whose clocks
 * differ still share one bucket. A key pair per limited name, under one hash tag, so a Redis
 * Cluster keeps them in one slot.
 */

/**
 * Admits one call: KEYS[1] the token bucket (a hash: tokens, last), KEYS[2] the calls in flight
 * (a sorted set: holder -> lease end). ARGV: max in flight (0: none), tokens per ms (0: no rate),
 * burst, holder id, lease ms. Returns {0, 0} admitted (the holder holds a place), {1, ms} full,
 * {2, ms} over the rate. Holders whose lease lapsed (their replica died) are dropped first; a
 * refused call takes no token and holds no place.
 */
export const ADMIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local max = tonumber(ARGV[1])
local lease = tonumber(ARGV[5])
if max > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  if redis.call('ZCARD', KEYS[2]) >= max then return {1, 100} end
end
local perMs = tonumber(ARGV[2])
if perMs > 0 then
  local burst = tonumber(ARGV[3])
  local held = redis.call('HMGET', KEYS[1], 'tokens', 'last')
  local tokens = tonumber(held[1]) or burst
  local last = tonumber(held[2]) or now
  if now > last then
    tokens = math.min(burst, tokens + (now - last) * perMs)
    last = now
  end
  local ttl = math.ceil(burst / perMs) + 1000
  if tokens < 1 then
    redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'last', tostring(last))
    redis.call('PEXPIRE', KEYS[1], ttl)
    return {2, math.max(1, math.ceil((1 - tokens) / perMs - 1e-9))}
  end
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens - 1), 'last', tostring(last))
  redis.call('PEXPIRE', KEYS[1], ttl)
end
if max > 0 then
  redis.call('ZADD', KEYS[2], now + lease, ARGV[4])
  redis.call('PEXPIRE', KEYS[2], lease * 2)
end
return {0, 0}
`;

/**
 * Renews a place held (KEYS[1] the calls in flight, ARGV[1] holder, ARGV[2] lease ms), and puts
 * it back when the store lost it (a restart without persistence): a replica renews only the places
 * its calls still hold, so what it writes is what is in flight.
 */
export const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
redis.call('PEXPIRE', KEYS[1], lease * 2)
return 1
`;
