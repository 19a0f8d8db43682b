#pragma once
/* The C surface Lodestone needs from Linux: libi2c (<i2c/smbus.h>, Debian's libi2c-dev ships no
 * pkg-config file, hence `link "i2c"`), libiio (<iio.h>, pkg-config libiio), zlib, and the ioctls.
 * ioctl() is variadic, which Swift cannot call, so each use gets a typed inline wrapper here. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <termios.h>
#include <sys/ioctl.h>
#include <linux/i2c.h>
#include <linux/i2c-dev.h>
#include <i2c/smbus.h>
#include <iio.h>
#include <zlib.h>

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
/* errno is a macro over a thread-local; expose it as a function. */
static inline int lodestone_errno(void) { return errno; }
static inline void lodestone_set_errno(int e) { errno = e; }
