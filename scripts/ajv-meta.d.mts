export declare const GENERATED: URL;
export declare const ENGINE_OPTIONS: { allErrors: boolean; strict: boolean; validateFormats: boolean };
export declare function metaValidatorsModule(): string;
