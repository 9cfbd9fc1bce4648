import { Flags } from '@oclif/core';

/** Declared for --help and validation; their order is read from the raw argv (filter-args.ts). */
export const ruleFlags = {
  include: Flags.string({ description: 'Glob of names to show (repeatable; order matters, first match wins).', multiple: true, multipleNonGreedy: true }),
  exclude: Flags.string({ description: 'Glob of names to hide (repeatable; order matters, first match wins).', multiple: true, multipleNonGreedy: true }),
};

export const upstreamFlags = {
  url: Flags.string({ description: 'A remote upstream server instead of a command after --.' }),
  header: Flags.string({ description: 'HTTP header for --url as NAME=VALUE (repeatable).', multiple: true, multipleNonGreedy: true }),
};
