/* The read path's ceiling: the least a FastCGI responder can do behind the same nginx.
 * N threads, each blocking in FCGX_Accept_r like CLup's worker, answer every request with the
 * same bytes (a copy of CLup's home page), so the difference to CLup is CLup's own work.
 *
 * usage: fcgi-static SOCKET PAGE-FILE THREADS */
#include <fcgiapp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The head CLup's worker sends, the page's length included (made once the page is read). */
static char head[256];
static int head_length;
static char *page;
static long page_length;
static int listener;

static void *serve(void *unused) {
    (void)unused;
    FCGX_Request request;
    if (FCGX_InitRequest(&request, listener, 0) != 0) return NULL;
    while (FCGX_Accept_r(&request) >= 0) {
        FCGX_PutStr(head, head_length, request.out);
        FCGX_PutStr(page, (int)page_length, request.out);
        FCGX_Finish_r(&request);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s SOCKET PAGE-FILE THREADS\n", argv[0]);
        return 2;
    }
    FILE *file = fopen(argv[2], "rb");
    if (!file) { perror(argv[2]); return 1; }
    fseek(file, 0, SEEK_END);
    page_length = ftell(file);
    fseek(file, 0, SEEK_SET);
    page = malloc((size_t)page_length);
    if (!page || fread(page, 1, (size_t)page_length, file) != (size_t)page_length) { perror("read"); return 1; }
    fclose(file);
    head_length = snprintf(head, sizeof head, "Status: 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
                           "Cache-Control: no-store\r\nContent-Length: %ld\r\n\r\n", page_length);

    int threads = atoi(argv[3]);
    if (threads < 1) threads = 1;
    if (FCGX_Init() != 0) return 1;
    listener = FCGX_OpenSocket(argv[1], 1024);
    if (listener < 0) { fprintf(stderr, "cannot listen on %s\n", argv[1]); return 1; }
    chmod(argv[1], 0666);
    pthread_t *pool = calloc((size_t)threads, sizeof *pool);
    for (int i = 0; i < threads; i++) pthread_create(&pool[i], NULL, serve, NULL);
    for (int i = 0; i < threads; i++) pthread_join(pool[i], NULL);
    return 0;
}
