// Types of the GitHub MCP server stand-in (github-standin.mjs), for the TypeScript tests.
export declare function startGithubStandin(token: string): Promise<{ url: string; close(): Promise<void> }>;
