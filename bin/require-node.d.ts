export declare const NODE_MAJOR: number
/** Stops the process with one line when this Node is older than NODE_MAJOR. */
export declare function requireNode(what: string): void
