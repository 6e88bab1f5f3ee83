#ifndef KV_LOG_H
#define KV_LOG_H

/* Print a timestamped message to stderr. */
void log_msg(const char *fmt, ...);

#endif
