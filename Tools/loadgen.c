// loadgen: a small WebSocket load generator for shuffleboard's benchmarks (and for any server that
// speaks the same few messages: hello -> welcome, dragStart -> dragStart, hover relayed to the rest
// of the board with its numeric "t" unchanged). One thread, epoll, no allocation per message.
//
// It connects --clients connections (at most --connecting at once), each says hello to board
// <board><i % boards> and waits for its welcome. Mode "idle" then reads the server's RSS and holds
// the connections for --hold seconds. Mode "hover" makes the first --senders connections lift a
// tile each and send --rate hovers a second for --seconds; every hover carries "t" (microseconds
// since the run began) and every receiver measures hand-to-screen latency from it. Mode "ops"
// makes every client keep --window toggles of items of its own in flight for --seconds (nothing
// conflicts, every op commits; with --boards K, client i is on board i % K and toggles items of its
// own there) and counts committed ops, each once, at its sender.
//
// It prints one JSON line. With --server-pid it also reads the server's RSS (/proc/PID/status)
// and CPU time (/proc/PID/stat) around the measured phase. Every loop is bounded in time.
//
// Build: scripts/build-loadgen.sh (gcc -O2). Usage: loadgen --help.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum state { CONNECTING, HANDSHAKE, JOINING, JOINED, CLOSED };

struct conn {
    int fd;
    enum state state;
    int sender;        // index among senders, or -1
    int lifted;        // a sender: its own dragStart came back
    uint64_t sent;     // hovers sent (senders)
    uint64_t received; // hovers received in the measured phase
    char *carry;       // bytes of a frame not yet complete
    size_t carry_len, carry_cap;
    uint64_t skip;     // payload bytes of a large frame still to discard
    char by[40];       // '"by":"<our user id>"', from the welcome
    uint64_t seq;      // mode ops: the newest seq seen
    uint64_t op_sent_us[12]; // mode ops: when the op in flight on each of its items was sent
    uint64_t ops_sent;
    int on;
    char *out;         // bytes the socket did not take yet
    size_t out_len, out_cap;
};

static struct {
    const char *host, *path, *board, *mode, *label;
    int port, clients, senders, boards, connecting, server_pid;
    double rate, seconds, hold, timeout, drain;
    int window;
    const char *source; // --source ADDR: the local address connections are made from (NULL: the kernel's)
} opt = {"127.0.0.1", "/ws", "bench", "hover", "", 0, 100, 0, 1, 256, 0, 100, 5, 1, 60, 3, 3, NULL};
static int ops_mode;
static uint64_t committed_total, rejected_total, ops_stop_us;

static struct conn *conns;
static int epfd;
static uint64_t t0_us;
static int measuring;
static uint64_t hist[200001]; // latency histogram, 10 us buckets up to 2 s; the last counts the rest
static uint64_t lat_count, lat_max_us, received_total, last_receive_us, errors, closed, echoed;
static int joined, lifted;

static uint64_t now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void die(const char *what) {
    fprintf(stderr, "loadgen: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void reserve(char **buf, size_t *cap, size_t need) {
    if (need <= *cap) return;
    size_t c = *cap ? *cap : 256;
    while (c < need) c *= 2;
    *buf = realloc(*buf, c);
    if (!*buf) die("realloc");
    *cap = c;
}

static void want_write(struct conn *c, int on) {
    struct epoll_event ev = {.events = EPOLLIN | (on ? EPOLLOUT : 0), .data.u32 = (uint32_t)(c - conns)};
    epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

static void close_conn(struct conn *c) {
    if (c->state == CLOSED) return;
    if (c->state == JOINING || c->state == HANDSHAKE || c->state == CONNECTING) errors++;
    close(c->fd);
    c->state = CLOSED;
    closed++;
    free(c->carry);
    free(c->out);
    c->carry = c->out = NULL;
    c->carry_len = c->carry_cap = c->out_len = c->out_cap = 0;
}

static void flush(struct conn *c) {
    while (c->out_len) {
        ssize_t n = send(c->fd, c->out, c->out_len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EAGAIN) break;
            close_conn(c);
            return;
        }
        memmove(c->out, c->out + n, c->out_len - (size_t)n);
        c->out_len -= (size_t)n;
    }
    want_write(c, c->out_len > 0);
}

// Queues one masked text (or pong) frame; the caller flushes.
static void queue_frame(struct conn *c, int opcode, const char *payload, size_t len) {
    reserve(&c->out, &c->out_cap, c->out_len + len + 14);
    unsigned char *p = (unsigned char *)c->out + c->out_len;
    size_t h = 0;
    p[h++] = 0x80 | (unsigned char)opcode;
    if (len < 126) {
        p[h++] = 0x80 | (unsigned char)len;
    } else {
        p[h++] = 0x80 | 126;
        p[h++] = (unsigned char)(len >> 8);
        p[h++] = (unsigned char)len;
    }
    // A zero mask: legal (the client picks it), and the payload goes out as it is.
    memset(p + h, 0, 4);
    h += 4;
    memcpy(p + h, payload, len);
    c->out_len += h + len;
}

static void send_text(struct conn *c, const char *text) {
    queue_frame(c, 1, text, strlen(text));
    flush(c);
}

// When the bytes being parsed were read (set after each recv): one clock read per read, not
// per message, and the latency a message saw up to the moment it arrived.
static uint64_t recv_now_us;

static void record_latency(uint64_t sent_us) {
    uint64_t now = recv_now_us - t0_us;
    uint64_t l = now > sent_us ? now - sent_us : 0;
    uint64_t b = l / 10;
    hist[b > 200000 ? 200000 : b]++;
    if (l > lat_max_us) lat_max_us = l;
    lat_count++;
}

// One hover delivered to `c`; `t` points at its "t": member (NULL: none).
static void delivered(struct conn *c, const char *t) {
    c->received++;
    received_total++;
    last_receive_us = recv_now_us;
    if (t) record_latency((uint64_t)strtod(t + 4, NULL));
}

static const char *find(const char *s, size_t n, const char *needle) {
    return memmem(s, n, needle, strlen(needle));
}

static void record_latency(uint64_t sent_us);
static const char *find(const char *s, size_t n, const char *needle);

// Mode ops: a toggle of the item in `slot` (one of this client's `window` items), based on the
// newest seq this client has seen, so it never conflicts (nobody else touches the item).
static void send_op(struct conn *c, int slot) {
    int i = (int)(c - conns);
    char msg[160];
    c->on = !c->on;
    snprintf(msg, sizeof msg, "{\"type\":\"toggle\",\"op\":\"c%d-%d-%llu\",\"base\":%llu,\"item\":\"t%d\",\"on\":%s}", i,
             slot, (unsigned long long)c->ops_sent++, (unsigned long long)c->seq, 1 + (i / opt.boards) * opt.window + slot,
             c->on ? "true" : "false");
    c->op_sent_us[slot] = now_us() - t0_us;
    queue_frame(c, 1, msg, strlen(msg));
}

static void on_ops_text(struct conn *c, const char *p, size_t n) {
    const char *seq = find(p, n, "\"seq\":");
    if (seq) {
        uint64_t v = strtoull(seq + 6, NULL, 10);
        if (v > c->seq) c->seq = v;
    }
    if (find(p, n, "\"type\":\"reject\"")) rejected_total++;
    if (!find(p, n, "\"type\":\"toggle\"")) return;
    char mine[32];
    int len = snprintf(mine, sizeof mine, "\"op\":\"c%d-", (int)(c - conns));
    const char *op = find(p, n, mine);
    if (!op) return;
    int slot = atoi(op + len);
    if (slot < 0 || slot >= opt.window) return;
    // Only what commits before the stop counts: with many ops in flight, what comes back after it
    // would add up to a window's worth to the measured seconds' ops.
    if (now_us() >= ops_stop_us) return;
    record_latency(c->op_sent_us[slot]);
    committed_total++;
    send_op(c, slot);
    flush(c);
}

// One complete text message (or the first part of a large one).
static void on_text(struct conn *c, const char *p, size_t n) {
    if (ops_mode && c->state == JOINED) {
        on_ops_text(c, p, n);
        return;
    }
    if (c->state == JOINING) {
        if (find(p, n, "\"type\":\"welcome\"")) {
            c->state = JOINED;
            const char *you = find(p, n, "\"you\":\"");
            if (you) {
                const char *id = you + 7, *q = memchr(id, '"', (size_t)(p + n - id));
                if (q && q - id < 24) snprintf(c->by, sizeof c->by, "\"by\":\"%.*s\"", (int)(q - id), id);
            }
            joined++;
            if (ops_mode) {
                const char *seq = find(p, n, "\"seq\":");
                c->seq = seq ? strtoull(seq + 6, NULL, 10) : 0;
            }
            if (c->sender >= 0) {
                char msg[96];
                snprintf(msg, sizeof msg, "{\"type\":\"dragStart\",\"item\":\"t%d\"}", c->sender + 1);
                send_text(c, msg);
            }
        }
        return;
    }
    if (c->sender >= 0 && !c->lifted && find(p, n, "\"type\":\"dragStart\"")) {
        char item[32];
        snprintf(item, sizeof item, "\"item\":\"t%d\"", c->sender + 1);
        if (find(p, n, item)) {
            c->lifted = 1;
            lifted++;
        }
    }
    if (!measuring) return;
    const char *end = p + n, *q = p;
    // The usual frame: a hover, "type" first and "t" last (both servers write it so; a frame is
    // one message), looked at once; anything else goes the general way below.
    static const char hover_prefix[] = "{\"type\":\"hover\"";
    if (n > sizeof hover_prefix && memcmp(p, hover_prefix, sizeof hover_prefix - 1) == 0) {
        if (c->by[0] && find(p, n, c->by)) {
            echoed++;
            return;
        }
        // "t" from the end: ,"t":123.4}
        const char *t = NULL;
        for (const char *r = end - 5; r >= p && r > end - 40; r--) {
            if (r[0] == '"' && r[1] == 't' && r[2] == '"' && r[3] == ':') {
                t = r;
                break;
            }
        }
        delivered(c, t ? t : find(p, n, "\"t\":"));
        return;
    }
    while ((q = find(q, (size_t)(end - q), "\"type\":\"hover\""))) {
        q += 14;
        const char *next = find(q, (size_t)(end - q), "\"type\":");
        // A hover relayed back to its own sender is not a delivery (a server must not do that).
        if (c->by[0] && find(q, (size_t)((next ? next : end) - q), c->by)) {
            echoed++;
            continue;
        }
        delivered(c, find(q, (size_t)((next ? next : end) - q), "\"t\":"));
    }
}

// Parses every complete server frame in buf[0..len); returns how many bytes it used.
static size_t on_frames(struct conn *c, const char *buf, size_t len) {
    size_t at = 0;
    while (len - at >= 2) {
        const unsigned char *h = (const unsigned char *)buf + at;
        int opcode = h[0] & 0x0f;
        uint64_t plen = h[1] & 0x7f;
        size_t hl = 2;
        if (plen == 126) {
            if (len - at < 4) break;
            plen = ((uint64_t)h[2] << 8) | h[3];
            hl = 4;
        } else if (plen == 127) {
            if (len - at < 10) break;
            plen = 0;
            for (int i = 0; i < 8; i++) plen = (plen << 8) | h[2 + i];
            hl = 10;
        }
        if (len - at - hl < plen) {
            if (plen > 256 * 1024) {
                // A large frame (a welcome on a big board): look at what is here, drop the rest.
                if (opcode == 1 || opcode == 0) on_text(c, buf + at + hl, len - at - hl);
                c->skip = plen - (len - at - hl);
                return len;
            }
            break;
        }
        const char *payload = buf + at + hl;
        if (opcode == 1 || opcode == 0) {
            on_text(c, payload, plen);
        } else if (opcode == 9) {
            queue_frame(c, 10, payload, plen);
            flush(c);
        } else if (opcode == 8) {
            close_conn(c);
            return len;
        }
        at += hl + plen;
    }
    return at;
}

static char rbuf[1 << 20];

static void on_readable(struct conn *c) {
    for (int rounds = 0; rounds < 16 && c->state != CLOSED; rounds++) {
        size_t have = 0;
        if (c->state == HANDSHAKE) {
            ssize_t n = recv(c->fd, rbuf, sizeof rbuf - 1, MSG_PEEK);
            if (n <= 0) {
                if (n < 0 && errno == EAGAIN) return;
                close_conn(c);
                return;
            }
            rbuf[n] = 0;
            char *end = strstr(rbuf, "\r\n\r\n");
            if (!end) return;
            if (strncmp(rbuf, "HTTP/1.1 101", 12) != 0) {
                close_conn(c);
                return;
            }
            recv(c->fd, rbuf, (size_t)(end + 4 - rbuf), 0);
            c->state = JOINING;
            char hello[256];
            snprintf(hello, sizeof hello, "{\"type\":\"hello\",\"board\":\"%s%d\",\"name\":\"b%d\"}", opt.board,
                     (int)((c - conns) % opt.boards), (int)(c - conns));
            send_text(c, hello);
            continue;
        }
        if (c->carry_len) {
            memcpy(rbuf, c->carry, c->carry_len);
            have = c->carry_len;
            c->carry_len = 0;
        }
        ssize_t n = recv(c->fd, rbuf + have, sizeof rbuf - have, 0);
        recv_now_us = now_us();
        if (n <= 0) {
            if (n < 0 && errno == EAGAIN) {
                if (have) {
                    reserve(&c->carry, &c->carry_cap, have);
                    memcpy(c->carry, rbuf, have);
                    c->carry_len = have;
                }
                return;
            }
            close_conn(c);
            return;
        }
        size_t len = have + (size_t)n, start = 0;
        if (c->skip) {
            size_t s = c->skip < len ? (size_t)c->skip : len;
            c->skip -= s;
            start = s;
        }
        size_t used = start + on_frames(c, rbuf + start, len - start);
        if (c->state == CLOSED) return;
        if (used < len) {
            reserve(&c->carry, &c->carry_cap, len - used);
            memcpy(c->carry, rbuf + used, len - used);
            c->carry_len = len - used;
        }
        if ((size_t)n < sizeof rbuf - have) return;
    }
}

// --also-ports P2,P3,…: connection i goes to ports[i % nports], ports[0] being --port (clients
// spread over the nodes of a cluster, measured from one process and one clock).
static int ports[16];
static int nports = 1;

static void start_connect(int i) {
    struct conn *c = &conns[i];
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (c->fd < 0) die("socket (raise ulimit -n?)");
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (opt.source) {
        struct sockaddr_in local = {.sin_family = AF_INET};
        inet_pton(AF_INET, opt.source, &local.sin_addr);
        // The port is picked at connect, per destination: bind alone would take one per source address.
        setsockopt(c->fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
        if (bind(c->fd, (struct sockaddr *)&local, sizeof local) < 0) die("bind --source");
    }
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)ports[i % nports])};
    inet_pton(AF_INET, opt.host, &a.sin_addr);
    c->state = CONNECTING;
    c->sender = i < opt.senders ? i : -1;
    if (connect(c->fd, (struct sockaddr *)&a, sizeof a) < 0 && errno != EINPROGRESS) die("connect");
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.u32 = (uint32_t)i};
    epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev);
}

static void on_event(struct conn *c, uint32_t events) {
    if (c->state == CLOSED) return;
    if (c->state == CONNECTING && (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
        int err = 0;
        socklen_t l = sizeof err;
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l);
        if (err) {
            close_conn(c);
            return;
        }
        char req[512];
        int n = snprintf(req, sizeof req,
                         "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                         "Sec-WebSocket-Protocol: shuffleboard.v1\r\n\r\n",
                         opt.path, opt.host, opt.port);
        c->state = HANDSHAKE;
        reserve(&c->out, &c->out_cap, (size_t)n);
        memcpy(c->out, req, (size_t)n);
        c->out_len = (size_t)n;
        flush(c);
        return;
    }
    if (events & EPOLLIN) on_readable(c);
    if (c->state != CLOSED && (events & EPOLLOUT)) flush(c);
    if (c->state != CLOSED && (events & (EPOLLERR | EPOLLHUP)) && !(events & EPOLLIN)) close_conn(c);
}

// Runs the event loop until `until_us` (absolute) or until done() says so.
static void run_until(uint64_t until_us, int (*done)(void), void (*tick)(void)) {
    static struct epoll_event evs[1024];
    while (now_us() < until_us && !(done && done())) {
        int n = epoll_wait(epfd, evs, 1024, tick ? 1 : 10);
        for (int i = 0; i < n; i++) on_event(&conns[evs[i].data.u32], evs[i].events);
        if (tick) tick();
    }
}

static int next_to_connect;
static int all_joined(void) { return joined + (int)errors >= opt.clients; }
static void connect_tick(void) {
    int in_flight = next_to_connect - joined - (int)errors;
    while (next_to_connect < opt.clients && in_flight < opt.connecting) {
        start_connect(next_to_connect++);
        in_flight++;
    }
}
static int all_lifted(void) { return lifted >= opt.senders; }

static uint64_t expected_total, sent_total;
static uint64_t send_start_us;
static void send_tick(void) {
    uint64_t now = now_us();
    double elapsed = (double)(now - send_start_us) / 1e6;
    if (elapsed > opt.seconds) elapsed = opt.seconds;
    uint64_t due = (uint64_t)(elapsed * opt.rate);
    for (int s = 0; s < opt.senders; s++) {
        struct conn *c = &conns[s];
        if (c->state == CLOSED) continue;
        uint64_t burst = 0;
        while (c->sent < due && burst++ < 10000) {
            char msg[160];
            int n = snprintf(msg, sizeof msg, "{\"type\":\"hover\",\"item\":\"t%d\",\"over\":\"t%d\",\"t\":%llu}",
                             s + 1, (int)(5 + c->sent % 7), (unsigned long long)(now_us() - t0_us));
            queue_frame(c, 1, msg, (size_t)n);
            c->sent++;
            sent_total++;
        }
        if (burst) flush(c);
    }
}
static int drained(void) { return received_total >= expected_total; }

static long rss_kib(void) {
    if (!opt.server_pid) return 0;
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", opt.server_pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    long kb = 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6)) kb = atol(line + 6);
    fclose(f);
    return kb;
}

static double cpu_seconds(void) {
    if (!opt.server_pid) return 0;
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%d/stat", opt.server_pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p) return 0;
    unsigned long ut = 0, st = 0;
    // Fields after ")": state(3) ... utime(14) stime(15).
    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st);
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static double self_cpu(void) {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return (double)r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6 + (double)r.ru_stime.tv_sec + r.ru_stime.tv_usec / 1e6;
}

static double percentile(double q) {
    if (!lat_count) return 0;
    uint64_t want = (uint64_t)(q * (double)(lat_count - 1)) + 1, seen = 0;
    for (size_t b = 0; b <= 200000; b++) {
        seen += hist[b];
        if (seen >= want) return b == 200000 ? (double)lat_max_us / 1000 : (double)(b * 10 + 5) / 1000;
    }
    return (double)lat_max_us / 1000;
}

static void usage(void) {
    fprintf(stderr,
            "usage: loadgen --port P [--host 127.0.0.1] [--path /ws] [--mode hover|idle|ops] [--clients N]\n"
            "  [--senders S] [--rate HOVERS_PER_S_PER_SENDER] [--seconds S] [--boards K] [--board PREFIX]\n"
            "  [--connecting N] [--hold S] [--timeout S] [--drain S] [--server-pid PID] [--label NAME]\n"
            "  [--also-ports P2,P3,...] [--source LOCAL_ADDRESS]\n"
            "  [--window N]   (mode ops: each client keeps N toggles of its own items in flight)\n");
    exit(2);
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !v) usage();
        i++;
        if (!strcmp(a, "--port")) opt.port = atoi(v);
        else if (!strcmp(a, "--host")) opt.host = v;
        else if (!strcmp(a, "--path")) opt.path = v;
        else if (!strcmp(a, "--mode")) opt.mode = v;
        else if (!strcmp(a, "--clients")) opt.clients = atoi(v);
        else if (!strcmp(a, "--senders")) opt.senders = atoi(v);
        else if (!strcmp(a, "--rate")) opt.rate = atof(v);
        else if (!strcmp(a, "--seconds")) opt.seconds = atof(v);
        else if (!strcmp(a, "--boards")) opt.boards = atoi(v);
        else if (!strcmp(a, "--board")) opt.board = v;
        else if (!strcmp(a, "--connecting")) opt.connecting = atoi(v);
        else if (!strcmp(a, "--hold")) opt.hold = atof(v);
        else if (!strcmp(a, "--timeout")) opt.timeout = atof(v);
        else if (!strcmp(a, "--drain")) opt.drain = atof(v);
        else if (!strcmp(a, "--server-pid")) opt.server_pid = atoi(v);
        else if (!strcmp(a, "--label")) opt.label = v;
        else if (!strcmp(a, "--window")) opt.window = atoi(v);
        else if (!strcmp(a, "--source")) opt.source = v;
        else if (!strcmp(a, "--also-ports")) {
            for (const char *p = v; *p && nports < 16; nports++) {
                ports[nports] = atoi(p);
                if (ports[nports] <= 0) usage();
                p = strchr(p, ',');
                if (!p) { nports++; break; }
                p++;
            }
        } else usage();
    }
    ports[0] = opt.port;
    int hover = !strcmp(opt.mode, "hover");
    ops_mode = !strcmp(opt.mode, "ops");
    if (ops_mode) opt.senders = 0;
    // Mode ops: a board's clients toggle its 12 items, each its own `window` of them.
    if (ops_mode && (opt.window < 1 || (opt.clients + opt.boards - 1) / opt.boards * opt.window > 12)) usage();
    if (opt.port <= 0 || opt.clients < 1 || opt.boards < 1 || opt.senders > opt.clients || opt.senders > 12 ||
        (hover && opt.boards != 1) || opt.seconds > 600 || opt.hold > 600 || opt.timeout > 600)
        usage();
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    conns = calloc((size_t)opt.clients, sizeof *conns);
    epfd = epoll_create1(0);
    if (!conns || epfd < 0) die("setup");
    t0_us = now_us();

    long rss_before = rss_kib();
    double cpu_before = cpu_seconds();
    uint64_t connect_start = now_us();
    run_until(connect_start + (uint64_t)(opt.timeout * 1e6), all_joined, connect_tick);
    double connect_seconds = (double)(now_us() - connect_start) / 1e6;
    double connect_cpu = cpu_seconds() - cpu_before;

    double measured_seconds = 0, cpu = 0, gen_cpu = 0;
    long rss_after = 0;
    if (hover) {
        run_until(now_us() + 10000000, all_lifted, NULL);
        // Let what the joins and lifts sent reach everyone before counting hovers.
        run_until(now_us() + 300000, NULL, NULL);
        expected_total = 0;
        double c0 = cpu_seconds(), g0 = self_cpu();
        measuring = 1;
        send_start_us = now_us();
        run_until(send_start_us + (uint64_t)(opt.seconds * 1e6), NULL, send_tick);
        send_tick();
        expected_total = sent_total * (uint64_t)(opt.clients - 1);
        // Drain: until everything arrived, or nothing arrived for --drain seconds.
        uint64_t hard = now_us() + 30000000;
        while (!drained() && now_us() < hard) {
            uint64_t before = received_total;
            run_until(now_us() + (uint64_t)(opt.drain * 1e6), drained, NULL);
            if (received_total == before) break;
        }
        uint64_t end = last_receive_us > send_start_us ? last_receive_us : now_us();
        measured_seconds = (double)(end - send_start_us) / 1e6;
        cpu = cpu_seconds() - c0;
        gen_cpu = self_cpu() - g0;
        rss_after = rss_kib();
    } else if (ops_mode) {
        double c0 = cpu_seconds(), g0 = self_cpu();
        uint64_t start = now_us();
        ops_stop_us = start + (uint64_t)(opt.seconds * 1e6);
        for (int i = 0; i < opt.clients; i++) {
            if (conns[i].state != JOINED) continue;
            for (int slot = 0; slot < opt.window; slot++) send_op(&conns[i], slot);
            flush(&conns[i]);
        }
        run_until(ops_stop_us, NULL, NULL);
        measured_seconds = (double)(now_us() - start) / 1e6;
        cpu = cpu_seconds() - c0;
        gen_cpu = self_cpu() - g0;
        run_until(now_us() + 500000, NULL, NULL); // what was in flight at the stop comes back
        rss_after = rss_kib();
    } else {
        // Idle: let the server write what it queued, then read its memory, then hold.
        run_until(now_us() + 1000000, NULL, NULL);
        rss_after = rss_kib();
        run_until(now_us() + (uint64_t)(opt.hold * 1e6), NULL, NULL);
    }

    int open = 0;
    for (int i = 0; i < opt.clients; i++) open += conns[i].state == JOINED;
    double per_conn = joined ? (double)(rss_after - rss_before) * 1024.0 / joined : 0;
    printf("{\"scenario\":\"%s\",\"mode\":\"%s\",\"connections\":%d,\"joined\":%d,\"open\":%d,\"errors\":%llu,"
           "\"boards\":%d,\"connect_seconds\":%.3f,\"connect_server_cpu_seconds\":%.3f",
           opt.label, opt.mode, opt.clients, joined, open, (unsigned long long)errors, opt.boards,
           connect_seconds, connect_cpu);
    if (hover) {
        double offered = opt.rate * opt.senders * (opt.clients - 1);
        printf(",\"senders\":%d,\"rate_per_sender\":%.0f,\"seconds\":%.2f,\"offered_per_s\":%.0f,\"sent\":%llu,"
               "\"expected\":%llu,\"received\":%llu,\"delivered_ratio\":%.4f,\"delivered_per_s\":%.0f,"
               "\"latency_ms\":{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"max\":%.3f},"
               "\"echoed_to_sender\":%llu,\"server_cpu_percent\":%.1f,\"loadgen_cpu_percent\":%.1f",
               opt.senders, opt.rate, opt.seconds, offered, (unsigned long long)sent_total,
               (unsigned long long)expected_total, (unsigned long long)received_total,
               expected_total ? (double)received_total / (double)expected_total : 0,
               measured_seconds > 0 ? (double)received_total / measured_seconds : 0, percentile(0.5),
               percentile(0.9), percentile(0.99), (double)lat_max_us / 1000, (unsigned long long)echoed,
               measured_seconds > 0 ? 100 * cpu / measured_seconds : 0,
               measured_seconds > 0 ? 100 * gen_cpu / measured_seconds : 0);
    }
    if (ops_mode)
        printf(",\"in_flight\":%d,\"seconds\":%.2f,\"committed\":%llu,\"rejected\":%llu,\"ops_per_s\":%.0f,"
               "\"latency_ms\":{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"max\":%.3f},\"server_cpu_percent\":%.1f,"
               "\"loadgen_cpu_percent\":%.1f",
               opt.clients * opt.window, measured_seconds, (unsigned long long)committed_total,
               (unsigned long long)rejected_total, measured_seconds > 0 ? (double)committed_total / measured_seconds : 0,
               percentile(0.5), percentile(0.9), percentile(0.99), (double)lat_max_us / 1000,
               measured_seconds > 0 ? 100 * cpu / measured_seconds : 0,
               measured_seconds > 0 ? 100 * gen_cpu / measured_seconds : 0);
    printf(",\"server_rss_kib_before\":%ld,\"server_rss_kib_after\":%ld,\"server_rss_bytes_per_connection\":%.0f}\n",
           rss_before, rss_after, per_conn);
    fflush(stdout);
    return 0;
}
