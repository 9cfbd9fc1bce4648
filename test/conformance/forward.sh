#!/usr/bin/env bash
# The conformance suite's client command where a test runs the clients in its own process
# (test/helpers/conformance-clients.ts): this short process hands the host its arguments, folder
# and the variables a client reads (the list below), prints on stderr what the client
# printed, and exits with the client's status. It acknowledges the status ("ack") before it exits,
# so that the host knows the status reached the suite: a forward the suite killed at its timeout
# never acknowledges. Bash, not Node: the suite starts one per scenario, and a Node start with
# net loaded cost 0.05-0.08 CPU-s here against a few milliseconds for bash.
#   conformance client --command "bash test/conformance/forward.sh PORT plain|auth|auto" --scenario ...
# The host listens on 127.0.0.1:PORT and answers only a forward that first sends the token it put
# in the suite's environment (MCPKIT_CLIENT_HOST_TOKEN, not on a command line where ps shows it).
#
# To the host, fields ended by NUL: token, kind, server URL, folder, then NAME=VALUE for each
# variable the list below names, then an empty field. From the host: what the client printed (no NUL in
# it), a NUL, the client's status, "\n".
#
# Only what the clients read (client-lines.mjs, the mcpkit lines they run, run-tests.mjs's marker),
# never the whole environment: it would hand CI's secrets to whatever answers on the port, a
# process that bound it after the host closed among them.
set -u
# A host that refuses the token hangs up mid-request: say so below, rather than die of SIGPIPE.
trap '' PIPE
port=$1 kind=$2 url=${!#}
if ! exec 3<>"/dev/tcp/127.0.0.1/$port"; then
  echo "forward.sh: no client host at 127.0.0.1:$port" >&2
  exit 1
fi
{
  printf '%s\0' "${MCPKIT_CLIENT_HOST_TOKEN-}" "$kind" "$url" "$PWD"
  for name in $(compgen -e); do
    case $name in
      MCP_CONFORMANCE_* | PATH | HOME | TMPDIR | XDG_* | LANG | LC_* | NO_COLOR | MCPKIT_TEST_RUN | MCPKIT_NO_DAEMON | MCPKIT_LOG_LEVEL)
        printf '%s=%s\0' "$name" "${!name}"
        ;;
    esac
  done
  printf '\0'
} >&3 2>/dev/null
said='' status=''
IFS= read -r -d '' said <&3
IFS= read -r status <&3
printf '%s' "$said" >&2
if [[ ! $status =~ ^[0-9]+$ ]]; then
  echo 'forward.sh: the client host closed without a status' >&2
  exit 1
fi
printf 'ack\n' >&3
exit "$status"
