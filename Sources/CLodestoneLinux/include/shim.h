#pragma once
/* The C surface Lodestone needs from Linux: libi2c (<i2c/smbus.h>, Debian's libi2c-dev ships no
 * pkg-config file, hence `link "i2c"`), libiio (<iio.h>; loaded when first used, by iio_loader.c), zlib, and the
 * ioctls.
 * ioctl() is variadic, which Swift cannot call, so each use gets a typed inline wrapper here; so do the
 * zlib macros (deflateInit2). Nothing here retries or reads errno for Swift except lodestone_errno(): the
 * one EINTR loop and the one errno read live in LodestoneLinux/Syscalls.swift. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#include <termios.h>
#include <sys/ioctl.h>
#include <linux/i2c.h>
#include <linux/i2c-dev.h>
#include <linux/spi/spidev.h>
#include <i2c/smbus.h>
#include <iio.h>
#include <zlib.h>

/* NULL when libiio is loaded (loading it on the first call), else why not in one line naming the Debian package, e.g.
 * "the IIO backend needs libiio0: sudo apt install libiio0 (libiio.so.0: cannot open shared object file: …)". */
const char *lodestone_iio_unavailable(void);

/* I2C_SLAVE / I2C_SLAVE_FORCE: select the 7-bit target address for subsequent read()/write()/SMBus calls. */
static inline int lodestone_i2c_set_address(int fd, unsigned int addr, int force) {
    return ioctl(fd, force ? I2C_SLAVE_FORCE : I2C_SLAVE, (unsigned long)addr);
}
/* I2C_FUNCS: the adapter's functionality mask (I2C_FUNC_*). */
static inline int lodestone_i2c_funcs(int fd, unsigned long *funcs) {
    return ioctl(fd, I2C_FUNCS, funcs);
}
/* I2C_RDWR: combined transfers (several i2c_msg with repeated starts). */
static inline int lodestone_i2c_rdwr(int fd, struct i2c_msg *msgs, unsigned int nmsgs) {
    struct i2c_rdwr_ioctl_data data = { msgs, nmsgs };
    return ioctl(fd, I2C_RDWR, &data);
}
/* I2C_RDWR with two messages on the stack: write the 1-byte register pointer, repeated start, read `len`
 * bytes. The kernel (i2c-dev) rejects messages longer than 8192 bytes with EINVAL. */
static inline int lodestone_i2c_write_read(int fd, uint16_t addr, uint8_t reg, uint8_t *buf, uint16_t len) {
    struct i2c_msg msgs[2] = {
        { .addr = addr, .flags = 0, .len = 1, .buf = &reg },
        { .addr = addr, .flags = I2C_M_RD, .len = len, .buf = buf },
    };
    return lodestone_i2c_rdwr(fd, msgs, 2);
}
/* I2C_RDWR with one write message (`buf` already starts with the register pointer). */
static inline int lodestone_i2c_write_message(int fd, uint16_t addr, uint8_t *buf, uint16_t len) {
    struct i2c_msg msg = { .addr = addr, .flags = 0, .len = len, .buf = buf };
    return lodestone_i2c_rdwr(fd, &msg, 1);
}
/* SPI_IOC_MESSAGE(n): one SPI message of `n` (1 or 2) transfers with chip select held between them unless a
 * transfer sets cs_change. SPI_IOC_MESSAGE(N) sizes the ioctl number by N, so each count gets its own constant;
 * any other count is EINVAL. Returns the bytes transferred. */
static inline int lodestone_spi_message(int fd, struct spi_ioc_transfer *transfers, unsigned int n) {
    switch (n) {
    case 1: return ioctl(fd, SPI_IOC_MESSAGE(1), transfers);
    case 2: return ioctl(fd, SPI_IOC_MESSAGE(2), transfers);
    default: errno = EINVAL; return -1;
    }
}
/* SPI_IOC_WR_MODE / SPI_IOC_RD_MODE: clock polarity and phase (SPI_MODE_0 … SPI_MODE_3) and flags. */
static inline int lodestone_spi_set_mode(int fd, uint8_t mode) { return ioctl(fd, SPI_IOC_WR_MODE, &mode); }
static inline int lodestone_spi_get_mode(int fd, uint8_t *mode) { return ioctl(fd, SPI_IOC_RD_MODE, mode); }
/* SPI_IOC_WR_BITS_PER_WORD: word size (8 for every register chip here). */
static inline int lodestone_spi_set_bits_per_word(int fd, uint8_t bits) { return ioctl(fd, SPI_IOC_WR_BITS_PER_WORD, &bits); }
/* SPI_IOC_WR_MAX_SPEED_HZ / SPI_IOC_RD_MAX_SPEED_HZ: the default clock of transfers that give no speed_hz. */
static inline int lodestone_spi_set_max_speed(int fd, uint32_t hz) { return ioctl(fd, SPI_IOC_WR_MAX_SPEED_HZ, &hz); }
static inline int lodestone_spi_get_max_speed(int fd, uint32_t *hz) { return ioctl(fd, SPI_IOC_RD_MAX_SPEED_HZ, hz); }
/* TIOCGWINSZ: the terminal's size in character cells; returns -1 (errno set) when fd is no terminal. */
static inline int lodestone_terminal_columns(int fd, unsigned short *columns) {
    struct winsize ws;
    int ret = ioctl(fd, TIOCGWINSZ, &ws);
    if (ret == 0) *columns = ws.ws_col;
    return ret;
}
/* TIOCGWINSZ: rows and columns in character cells; returns -1 (errno set) when fd is no terminal. */
static inline int lodestone_terminal_size(int fd, unsigned short *rows, unsigned short *columns) {
    struct winsize ws;
    int ret = ioctl(fd, TIOCGWINSZ, &ws);
    if (ret == 0) { *rows = ws.ws_row; *columns = ws.ws_col; }
    return ret;
}
/* deflateInit2 is a macro; windowBits 15 + 16 selects the gzip wrapper (RFC 1952). */
static inline int lodestone_deflate_init_gzip(z_stream *strm, int level) {
    return deflateInit2(strm, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
/* errno is a macro over a thread-local; expose it as a function. */
static inline int lodestone_errno(void) { return errno; }
static inline void lodestone_set_errno(int e) { errno = e; }

/* TIOCSPTLCK / TIOCGPTN on /dev/ptmx: unlock a pseudo-terminal master's slave and get its number, the
 * ioctls behind unlockpt(3)/ptsname(3) (which Swift's Glibc module does not export). */
static inline int lodestone_pty_unlock(int fd) {
    int unlock = 0;
    return ioctl(fd, TIOCSPTLCK, &unlock);
}
static inline int lodestone_pty_number(int fd, unsigned int *number) {
    return ioctl(fd, TIOCGPTN, number);
}
