import type { Prompt, Resource, ResourceTemplateType, Tool } from '@modelcontextprotocol/server';
import type { ServerConfig } from '../config/schema/schema.js';

/** A look that waits less than the server's timeout_ms (a check of tool names), and why: said in the waiting notice. */
export interface ConnectLimit {
  ms: number;
  why: string;
}

/** How a single look connects: with an OAuth handle, a shorter limit, or as the connection 2026 clients share does (offering elicitation and sampling). */
export interface OneOffOptions {
  oauth?: OAuthHandle;
  limit?: ConnectLimit;
  asModernClients?: boolean;
}

/** One server reached for a single look (server test, set-tools' name check, a login's probe). */
export interface OneOffServer {
  listTools(): Promise<Tool[]>;
  /** The MCP revision the connection speaks (once connected). */
  protocolVersion(): string | undefined;
  listPrompts(): Promise<Prompt[]>;
  listResources(): Promise<Resource[]>;
  listResourceTemplates(): Promise<ResourceTemplateType[]>;
  /** The client capabilities the connection offered, as pins record them ("" for none; once connected). */
  capabilitySet(): string | undefined;
}

/** The OAuth of one connection, as made by the auth domain (`storedOAuth`); opaque to tools. */
export interface OAuthHandle {
  lastChallenge(): unknown;
}

export interface ServerOpener {
  /**
   * Connects to one server of the config for a single look, never reconnecting, its stderr kept
   * out of the terminal; runs `use` and closes the connection whatever happens.
   */
  with<T>(name: string, config: ServerConfig, use: (server: OneOffServer) => Promise<T>, options?: OneOffOptions): Promise<T>;
  /** The tools a terminal command last saw the server list, without starting it (none known: undefined). */
  lastListing?(name: string, config: ServerConfig): Tool[] | undefined;
}
