/* Read TPVs from a gpsd-compatible server through Debian's libgps, as cgps, navit and foxtrotgps do.
 *
 * Prints one line per report that set a position: `TPV mode=<mode> lat=<lat> lon=<lon> alt=<fix.altitude>`
 * (9 decimals) and `SKY used=<satellites_used>` / `ATT heading=<deg>`; exits 0 after COUNT TPVs, 1 on error or
 * timeout. Usage: libgps_client PORT COUNT. Written for Lodestone's gpsd tests; build: cc -o X libgps_client.c -lgps -lm
 */
#include <gps.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    struct gps_data_t data;
    if (argc < 3) {
        fprintf(stderr, "usage: %s PORT COUNT\n", argv[0]);
        return 2;
    }
    int want = atoi(argv[2]);
    if (gps_open("127.0.0.1", argv[1], &data) != 0) {
        fprintf(stderr, "gps_open failed\n");
        return 1;
    }
    (void)gps_stream(&data, WATCH_ENABLE | WATCH_JSON, NULL);
    time_t end = time(NULL) + 15;
    int seen = 0;
    while (seen < want && time(NULL) < end) {
        if (!gps_waiting(&data, 500000))
            continue;
        if (gps_read(&data, NULL, 0) == -1) {
            fprintf(stderr, "gps_read failed\n");
            return 1;
        }
        if ((data.set & ATTITUDE_SET) && isfinite(data.attitude.heading))
            printf("ATT heading=%.3f\n", data.attitude.heading);
        if (data.set & SATELLITE_SET)
            printf("SKY used=%d\n", data.satellites_used);
        if ((data.set & MODE_SET) && (data.set & LATLON_SET)) {
            printf("TPV mode=%d lat=%.9f lon=%.9f alt=%.4f\n", data.fix.mode, data.fix.latitude, data.fix.longitude,
                   data.fix.altitude);
            seen++;
        }
        data.set = 0;
        fflush(stdout);
    }
    (void)gps_stream(&data, WATCH_DISABLE, NULL);
    (void)gps_close(&data);
    return seen >= want ? 0 : 1;
}
