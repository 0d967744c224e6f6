// Tokens that end: the SDK's token keeper (sdk/tokens.js), which the SDK's client runs for the page.
export * from './sdk/tokens.js';
