type Level = 'info' | 'error';

/** ISO-8601 time stamp used in log lines and API responses. */
export function timestamp(): string {
  return new Date().toISOString();
}

/** Logs an informational message. */
export function info(message: string): void {
  write('info', message);
}

/** Logs an error together with its cause. */
export function error(message: string, cause?: unknown): void {
  const detail = cause instanceof Error ? `${message}: ${cause.message}` : message;
  write('error', detail);
}

/** Writes one line to stdout or stderr. */
function write(level: Level, message: string): void {
  const line = `${timestamp()} [${level}] ${message}`;
  if (level === 'error') {
    console.error(line);
  } else {
    console.log(line);
  }
}
