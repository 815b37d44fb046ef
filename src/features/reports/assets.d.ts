// Files embedded into the executable by Bun's import attributes.
declare module "*.mmdb" {
  const path: string;
  export default path;
}
declare module "*.csv" {
  const text: string;
  export default text;
}
