// Every table of the product. Each area keeps its tables in its own file; add new files here.
export * from "./accounts";
export * from "./admin";
export * from "./contact";
export * from "./domains";
export * from "./settings";
