// Every table of the product. Each area keeps its tables in its own file; add new files here.
export * from "./accounts";
export * from "./admin";
export * from "./contact";
export * from "./domains";
export * from "./settings";
export * from "./invitations";
export * from "./billing";
export * from "./mailboxes";
export * from "./reports";
export * from "./dns";
export * from "./password-tokens";
export * from "./auth-throttle";
export * from "./jobs";
export * from "./rollups";
export * from "./alerts";
export * from "./two-factor";
export * from "./api-tokens";
