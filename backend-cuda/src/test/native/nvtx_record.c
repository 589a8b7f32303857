/*
 * A stand-in libnvToolsExt for checking the cuda backend's NVTX ranges on a GPU machine that has no profiler
 * able to make a report: it exports the two calls the backend binds (nvtxRangeStartA, nvtxRangeEnd) and writes
 * each call as a line to the file named by GRAPHRT_NVTX_RECORD. CudaNvtxTest reads the lines back.
 *
 *   gcc -shared -fPIC -O1 -o DIR/libnvtx_record.so nvtx_record.c
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>

static FILE *out;
static uint64_t next_id = 1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void line(const char *kind, uint64_t id, const char *message) {
    pthread_mutex_lock(&lock);
    if (out == NULL) {
        const char *path = getenv("GRAPHRT_NVTX_RECORD");
        out = fopen(path != NULL ? path : "nvtx-record.txt", "w");
    }
    if (out != NULL) {
        fprintf(out, "%s %llu%s%s\n", kind, (unsigned long long) id, message ? " " : "", message ? message : "");
        fflush(out);
    }
    pthread_mutex_unlock(&lock);
}

uint64_t nvtxRangeStartA(const char *message) {
    uint64_t id = __atomic_fetch_add(&next_id, 1, __ATOMIC_SEQ_CST);
    line("start", id, message);
    return id;
}

void nvtxRangeEnd(uint64_t id) {
    line("end", id, NULL);
}
