import { defineConfig } from "drizzle-kit";

// The PostgreSQL migrations (`--database-url`); drizzle.config.ts generates the SQLite ones.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema-pg/index.ts",
  out: "./migrations/postgres",
});
