/** Settings of the running service. */
export interface AppConfig {
  port: number;
  pageSize: number;
}

/** Reads the settings from the environment (PORT, PAGE_SIZE) with defaults. */
export function loadConfig(): AppConfig {
  return {
    port: toInt(process.env.PORT, 3000),
    pageSize: toInt(process.env.PAGE_SIZE, 20),
  };
}

/** Parses an integer, falling back when the value is absent or not a number. */
function toInt(value: string | undefined, fallback: number): number {
  const parsed = Number.parseInt(value ?? '', 10);
  return Number.isNaN(parsed) ? fallback : parsed;
}
