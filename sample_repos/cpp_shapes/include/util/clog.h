#ifndef CLOG_H
#define CLOG_H

#ifdef __cplusplus
extern "C" {
#endif

/* Write one line to stderr (a C library the C++ code calls). */
void clog_line(const char *text);

#ifdef __cplusplus
}
#endif

#endif
