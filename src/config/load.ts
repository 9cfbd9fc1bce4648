import { addSecrets } from '../core/redact.js';
import { checkConfigData, type CheckedConfig } from './check/check.js';
import { configData } from './check/yaml-data.js';
import { readConfigText } from './as-written.js';
import type { ConfigSource } from './locate.js';
import { configInvalid } from './check/problems.js';
import { readWithPinText } from './files/read-with-pins.js';
import { defaultConfig, type McpkitConfig } from './schema/schema.js';
import { readSecrets, type SecretSnapshot } from './secrets/secret-sources.js';

export interface LoadedConfig extends CheckedConfig {
  location: ConfigSource;
  exists: boolean;
  /** The file as read (absent when there is none). */
  text?: string;
  /** The `${file:}` and `${keyring:}` secrets it uses, as read (absent when it uses none). */
  secretSources?: SecretSnapshot;
}

/** Reads and checks the config; a missing file is the defaults. Never throws for a bad file: see `problems`. */
export async function inspectConfig(location: ConfigSource, env: NodeJS.ProcessEnv): Promise<LoadedConfig> {
  return inspectRead(location, await readConfigText(location), env);
}

/** inspectConfig of a read already made. */
async function inspectRead(location: ConfigSource, read: Awaited<ReturnType<typeof readConfigText>>, env: NodeJS.ProcessEnv): Promise<LoadedConfig> {
  if ('missing' in read) return { location, exists: false, problems: [], raw: {}, config: defaultConfig(), fromEnv: new Set() };
  if ('directory' in read) {
    return { location, exists: true, problems: [{ path: '(file)', message: `${location.path} is a directory, not a YAML file` }], fromEnv: new Set() };
  }
  return inspectConfigTextWithSecrets(location, read.text, env);
}

/**
 * The checks of a config file's text already read (serve's reload reads it first, to skip an
 * unchanged file), without reading the secrets it names: each `${file:}` and `${keyring:}` is a
 * problem. What loads a config to use it calls inspectConfigTextWithSecrets.
 */
export function inspectConfigText(location: ConfigSource, text: string, env: NodeJS.ProcessEnv): LoadedConfig {
  return inspectData(location, text, configData(text), env);
}

/** inspectConfigText with the `${file:}` and `${keyring:}` secrets the text names read first. */
export async function inspectConfigTextWithSecrets(location: ConfigSource, text: string, env: NodeJS.ProcessEnv): Promise<LoadedConfig> {
  const parsed = configData(text);
  return inspectData(location, text, parsed, env, 'raw' in parsed ? await readSecrets(parsed.raw, location.path) : undefined);
}

function inspectData(
  location: ConfigSource,
  text: string,
  parsed: ReturnType<typeof configData>,
  env: NodeJS.ProcessEnv,
  secrets?: Awaited<ReturnType<typeof readSecrets>>,
): LoadedConfig {
  if (!('raw' in parsed)) return { location, exists: true, text, problems: parsed.problems, fromEnv: new Set() };
  const checked = checkConfigData(parsed.raw, env, secrets?.values);
  // From here on, no error or log line shows them (core/redact).
  addSecrets(checked.secrets ?? []);
  return { location, exists: true, text, ...checked, ...(secrets?.snapshot ? { secretSources: secrets.snapshot } : {}) };
}

/** A loaded config with the text it was made from (undefined: no file) and its secrets as read, for what follows the file to compare later reads with. */
export interface ConfigWithSource {
  config: McpkitConfig;
  text: string | undefined;
  secretSources?: SecretSnapshot;
  /** The text of its lock file read just before it ("" for none): the approvals dropped since are the entries' read here (proxy/pins/pin-keeper.ts). */
  pinText?: string;
  /** The config's edit lock, when it was held at the read (pinText is then ""): the front end warns of it. */
  heldLock?: string;
}

/** The config a tool runs with: interpolated, validated, defaults applied; a bad file is a CONFIG_INVALID error. */
export async function loadConfig(location: ConfigSource, env: NodeJS.ProcessEnv): Promise<McpkitConfig> {
  return (await loadConfigWithSource(location, env)).config;
}

/** loadConfig, with the text the config was made from, its secrets and its lock file's text as read (the runtime's LiveConfig keeps them). */
export async function loadConfigWithSource(location: ConfigSource, env: NodeJS.ProcessEnv): Promise<ConfigWithSource> {
  // The text is what is read with the lock (that read may be made again); the secrets it names after, once (a keyring read may ask a person).
  const { pinText, value: read, heldLock } = await readWithPinText(location.path, () => readConfigText(location));
  const loaded = await inspectRead(location, read, env);
  if (!loaded.config) throw configInvalid(location.path, loaded.problems);
  return {
    config: loaded.config,
    text: loaded.text,
    pinText,
    ...(heldLock ? { heldLock } : {}),
    ...(loaded.secretSources ? { secretSources: loaded.secretSources } : {}),
  };
}
