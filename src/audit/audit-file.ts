import { dirname, resolve } from 'node:path';
import { mkdirSync } from 'node:fs';
import { ToolError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { AuditLog } from './audit-log.js';
import { Auditor } from './auditor.js';

/** The audit settings of the serve section, as the config gives them. */
export interface AuditSettings {
  audit_log?: string | undefined;
  audit_max_bytes?: number | undefined;
  audit_keep?: number | undefined;
  audit_arguments?: boolean | undefined;
}

/**
 * Where the audit log is: a flag's path (relative to where the command runs), else serve.audit_log
 * (relative to the config file); undefined when neither is set. Pure.
 */
export function auditPath(settings: AuditSettings, configPath: string, flag?: string): string | undefined {
  if (flag) return resolve(flag);
  return settings.audit_log ? resolve(dirname(configPath), settings.audit_log) : undefined;
}

/**
 * The audit log at `path`, with its folder made private when it does not exist yet
 * (~/.local/state/mcpkit). Serve and the terminal's calls both write it: a path that cannot be
 * opened is FILE_ACCESS, naming it.
 */
export function openAuditFile(path: string, settings: AuditSettings, logger: Logger): Auditor {
  let log: AuditLog;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    log = new AuditLog(path, {
      ...(settings.audit_max_bytes ? { maxBytes: settings.audit_max_bytes } : {}),
      ...(settings.audit_keep !== undefined ? { keep: settings.audit_keep } : {}),
      failed: (reason) => logger.error(`${reason}; audit lines wait (up to 10,000, then are dropped and counted) and the write is tried again`),
      recovered: (dropped) => logger.warn(`the audit log ${path} is written again${dropped ? ` (${dropped} line(s) were dropped meanwhile)` : ''}`),
    });
  } catch (error) {
    throw new ToolError('FILE_ACCESS', `Cannot open the audit log ${path}: ${(error as Error).message}.`, {
      details: { file: path },
      hint: 'Check that its folder exists and is writable, or choose another --audit-log / serve.audit_log.',
    });
  }
  return new Auditor(log, { arguments: settings.audit_arguments === true });
}
