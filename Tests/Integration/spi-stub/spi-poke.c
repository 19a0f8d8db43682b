/* spi-poke DEVICE BYTE...: one write() of the given bytes (0x.. or decimal) to a spidev node, which spidev sends as
 * one TX-only message with chip select held: the command byte of a register write, then the data. Used by
 * Lodestone's QEMU test to preset the register files of lodestone-spi-stub. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
    unsigned char bytes[256];
    if (argc < 3 || argc - 2 > (int)sizeof bytes) { fprintf(stderr, "usage: spi-poke /dev/spidevB.C BYTE...\n"); return 2; }
    for (int i = 2; i < argc; i++) bytes[i - 2] = (unsigned char)strtoul(argv[i], NULL, 0);
    int fd = open(argv[1], O_WRONLY);
    if (fd < 0) { perror(argv[1]); return 1; }
    ssize_t n = write(fd, bytes, (size_t)(argc - 2));
    if (n != argc - 2) { perror("write"); return 1; }
    return close(fd) == 0 ? 0 : 1;
}
