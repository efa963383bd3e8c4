/* Assertion macros shared by the C test programs (not part of the library's API). */
#ifndef JUNQI_TESTS_CHECK_H
#define JUNQI_TESTS_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "junqi.h"

/* The call must return JUNQI_STATUS_OK; otherwise print the status and message, and exit. */
#define CHECK(call)                                                                  \
    do {                                                                             \
        junqi_status st_ = (call);                                                   \
        if (st_ != JUNQI_STATUS_OK) {                                                \
            fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call,      \
                    junqi_status_name(st_), junqi_last_error_message());             \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

/* The condition must hold; otherwise print it and exit. */
#define EXPECT(cond)                                                                 \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);      \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

/* The call must return `want`; otherwise print both statuses and the message, and exit. */
#define EXPECT_STATUS(want, call)                                                    \
    do {                                                                             \
        junqi_status st_ = (call);                                                   \
        if (st_ != (want)) {                                                         \
            fprintf(stderr, "%s:%d: %s -> %s, expected %s (%s)\n", __FILE__,         \
                    __LINE__, #call, junqi_status_name(st_), junqi_status_name(want), \
                    junqi_last_error_message());                                     \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

#endif
