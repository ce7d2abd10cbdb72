/*
 * The floor for youll-devices' MQTT benchmarks: a plain C libmosquitto client doing
 * the same command -> report round trip as TuyaController, through the same broker,
 * to the same simulated devices, with none of the gateway's work (no typed commands,
 * no encryption on our side: the frames are prepared beforehand).
 *
 * Usage: mqtt_floor PORT FRAMES_FILE ROUNDS [GAP_MS]
 *   FRAMES_FILE: one line per device: "<devId> <hex frame> [<hex frame>]" (protocol-5
 *   commands already encrypted with that device's key). With two frames the device
 *   gets them alternately, so every command changes its state.
 *   Round trip: ROUNDS commands, one at a time, rotating over the devices (sample i
 *   goes to device i % count), each until the device's report arrives on
 *   smart/device/out/<devId>. Like the gateway, two commands to one device are at least
 *   GAP_MS (default 300, the profiles' frame gap) apart: when the rotation comes back
 *   too early, the client waits before starting the clock. Sweep: (after GAP_MS) one
 *   command to every device, until every device has answered.
 * Prints BENCH lines: mqtt.floor.rtt.p50 / .p99 (ms) and mqtt.floor.sweep (ms, the median
 * of SWEEPS sweeps).
 *
 * Like the fastest floor in INTEROP.md, it drives mosquitto_loop itself (no thread)
 * and sets TCP_NODELAY.
 *
 * Usage: mqtt_floor --announce HOST PORT TOPIC PAYLOAD
 *   The floor for the daemon's start (`youll-bench serve`): start, connect, publish
 *   PAYLOAD retained at QoS 1 on TOPIC, wait for the PUBACK, disconnect, exit 0. What
 *   the daemon does to say `bridge/state` online, with nothing else.
 */
#include <mosquitto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SWEEPS 5
#define MAX_DEVICES 20000

static char *dev_ids[MAX_DEVICES];
static unsigned char *frames[MAX_DEVICES][2];
static int frame_lengths[MAX_DEVICES][2];
static int frame_count[MAX_DEVICES];
static int commands_sent[MAX_DEVICES];
static double last_sent_ms[MAX_DEVICES];
static int device_count;
static char answered[MAX_DEVICES];
static int answers;
static int connected;
static int subscribed;
static int waiting_for = -1;
static int got_wanted;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int find_device(const char *dev_id) {
    /* Linear scan is fine for the round trip (device 0) and costs the sweep little;
       a hash would hide nothing the gateway does not also do. */
    for (int i = 0; i < device_count; i++)
        if (strcmp(dev_ids[i], dev_id) == 0) return i;
    return -1;
}

static void on_connect(struct mosquitto *m, void *ud, int rc) {
    (void)ud;
    if (rc == 0) {
        connected = 1;
        mosquitto_subscribe(m, NULL, "smart/device/out/+", 1);
    }
}

static void on_subscribe(struct mosquitto *m, void *ud, int mid, int n, const int *q) {
    (void)m; (void)ud; (void)mid; (void)n; (void)q;
    subscribed = 1;
}

static void on_message(struct mosquitto *m, void *ud, const struct mosquitto_message *msg) {
    (void)m; (void)ud;
    const char *prefix = "smart/device/out/";
    if (strncmp(msg->topic, prefix, strlen(prefix)) != 0) return;
    int i = find_device(msg->topic + strlen(prefix));
    if (i >= 0 && i == waiting_for) got_wanted = 1;
    if (i >= 0 && !answered[i]) {
        answered[i] = 1;
        answers++;
    }
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static unsigned char *parse_hex(const char *hex, size_t n, int *length) {
    unsigned char *bytes = malloc(n / 2 + 1);
    for (size_t i = 0; i + 1 < n; i += 2)
        bytes[i / 2] = (unsigned char)(hex_value(hex[i]) << 4 | hex_value(hex[i + 1]));
    *length = (int)(n / 2);
    return bytes;
}

static int load_frames(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    static char line[1 << 16];
    while (device_count < MAX_DEVICES && fgets(line, sizeof line, f)) {
        char *space = strchr(line, ' ');
        if (!space) continue;
        *space = 0;
        int d = device_count;
        char *hex = space + 1;
        for (int k = 0; k < 2; k++) {
            size_t n = strcspn(hex, " \r\n");
            if (n < 2) break;
            frames[d][k] = parse_hex(hex, n, &frame_lengths[d][k]);
            frame_count[d]++;
            hex += n;
            if (*hex != ' ') break;
            hex++;
        }
        if (frame_count[d] == 0) continue;
        dev_ids[d] = strdup(line);
        device_count++;
    }
    fclose(f);
    return device_count;
}

static void wait_until(struct mosquitto *m, int *flag_or_null, int target, double deadline_ms) {
    while (now_ms() < deadline_ms) {
        if (flag_or_null ? *flag_or_null : answers >= target) return;
        mosquitto_loop(m, 5, 1);
    }
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void publish(struct mosquitto *m, int i) {
    char topic[256];
    snprintf(topic, sizeof topic, "smart/device/in/%s", dev_ids[i]);
    int k = commands_sent[i]++ % frame_count[i];
    last_sent_ms[i] = now_ms();
    mosquitto_publish(m, NULL, topic, frame_lengths[i][k], frames[i][k], 1, false);
}

/* Waits (serving the connection) until GAP_MS have passed since the last command to device i. */
static void respect_gap(struct mosquitto *m, int i, double gap_ms) {
    if (commands_sent[i] == 0) return;
    while (now_ms() < last_sent_ms[i] + gap_ms) mosquitto_loop(m, 1, 1);
}

static int announced;

static void on_announce_connect(struct mosquitto *m, void *ud, int rc) {
    (void)ud;
    if (rc == 0) connected = 1;
    (void)m;
}

static void on_announce_publish(struct mosquitto *m, void *ud, int mid) {
    (void)m; (void)ud; (void)mid;
    announced = 1;
}

/* --announce HOST PORT TOPIC PAYLOAD: one retained QoS-1 publish, then exit. */
static int announce(const char *host, int port, const char *topic, const char *payload) {
    mosquitto_lib_init();
    struct mosquitto *m = mosquitto_new(NULL, true, NULL);
    mosquitto_int_option(m, MOSQ_OPT_TCP_NODELAY, 1);
    mosquitto_connect_callback_set(m, on_announce_connect);
    mosquitto_publish_callback_set(m, on_announce_publish);
    if (mosquitto_connect(m, host, port, 30) != MOSQ_ERR_SUCCESS) {
        fprintf(stderr, "mqtt_floor: cannot connect to %s:%d\n", host, port);
        return 1;
    }
    wait_until(m, &connected, 0, now_ms() + 5000);
    if (!connected) {
        fprintf(stderr, "mqtt_floor: no CONNACK from %s:%d\n", host, port);
        return 1;
    }
    mosquitto_publish(m, NULL, topic, (int)strlen(payload), payload, 1, true);
    wait_until(m, &announced, 0, now_ms() + 5000);
    if (!announced) {
        fprintf(stderr, "mqtt_floor: no PUBACK for %s\n", topic);
        return 1;
    }
    mosquitto_disconnect(m);
    mosquitto_destroy(m);
    mosquitto_lib_cleanup();
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 6 && strcmp(argv[1], "--announce") == 0) return announce(argv[2], atoi(argv[3]), argv[4], argv[5]);
    if (argc < 4) {
        fprintf(stderr, "usage: %s PORT FRAMES_FILE ROUNDS [GAP_MS] | --announce HOST PORT TOPIC PAYLOAD\n", argv[0]);
        return 2;
    }
    int port = atoi(argv[1]);
    int rounds = atoi(argv[3]);
    double gap_ms = argc > 4 ? atof(argv[4]) : 300;
    if (load_frames(argv[2]) <= 0 || rounds <= 0) {
        fprintf(stderr, "mqtt_floor: no frames in %s\n", argv[2]);
        return 2;
    }
    mosquitto_lib_init();
    struct mosquitto *m = mosquitto_new("youll-bench-floor", true, NULL);
    mosquitto_int_option(m, MOSQ_OPT_TCP_NODELAY, 1);
    mosquitto_connect_callback_set(m, on_connect);
    mosquitto_subscribe_callback_set(m, on_subscribe);
    mosquitto_message_callback_set(m, on_message);
    if (mosquitto_connect(m, "127.0.0.1", port, 30) != MOSQ_ERR_SUCCESS) {
        fprintf(stderr, "mqtt_floor: cannot connect to 127.0.0.1:%d\n", port);
        return 1;
    }
    wait_until(m, &subscribed, 0, now_ms() + 5000);
    if (!subscribed) {
        fprintf(stderr, "mqtt_floor: no SUBACK\n");
        return 1;
    }

    double *samples = calloc((size_t)rounds, sizeof(double));
    for (int r = 0; r < rounds; r++) {
        int d = r % device_count;
        respect_gap(m, d, gap_ms);
        waiting_for = d;
        got_wanted = 0;
        double start = now_ms();
        publish(m, d);
        wait_until(m, &got_wanted, 0, start + 5000);
        if (!got_wanted) {
            fprintf(stderr, "mqtt_floor: device %s did not answer\n", dev_ids[d]);
            return 1;
        }
        samples[r] = now_ms() - start;
    }
    qsort(samples, (size_t)rounds, sizeof(double), compare_double);
    printf("BENCH mqtt.floor.rtt.p50 %.3f ms\n", samples[rounds / 2]);
    printf("BENCH mqtt.floor.rtt.p99 %.3f ms\n", samples[(rounds * 99) / 100]);

    /* Sweeps: SWEEPS times one command to every device, until every device answered;
       the median is reported, as one 100 ms sweep on a shared 2-core machine is noisy. */
    waiting_for = -1;
    double sweeps[SWEEPS];
    for (int s = 0; s < SWEEPS; s++) {
        for (int i = 0; i < device_count; i++) respect_gap(m, i, gap_ms);
        memset(answered, 0, sizeof answered);
        answers = 0;
        double start = now_ms();
        for (int i = 0; i < device_count; i++) {
            publish(m, i);
            mosquitto_loop(m, 0, 1);
        }
        wait_until(m, NULL, device_count, start + 30000);
        sweeps[s] = now_ms() - start;
        if (answers < device_count) {
            fprintf(stderr, "mqtt_floor: only %d of %d devices answered sweep %d\n", answers, device_count, s + 1);
            return 1;
        }
    }
    qsort(sweeps, SWEEPS, sizeof(double), compare_double);
    printf("BENCH mqtt.floor.sweep %.1f ms\n", sweeps[SWEEPS / 2]);
    printf("# floor sweeps: min %.1f, median %.1f, max %.1f ms over %d\n", sweeps[0], sweeps[SWEEPS / 2],
           sweeps[SWEEPS - 1], SWEEPS);
    mosquitto_disconnect(m);
    mosquitto_destroy(m);
    mosquitto_lib_cleanup();
    return 0;
}
