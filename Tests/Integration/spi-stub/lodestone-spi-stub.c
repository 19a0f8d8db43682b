// SPDX-License-Identifier: GPL-2.0
/*
 * lodestone-spi-stub: a test-only SPI controller whose chip selects are register files, what i2c-stub is for
 * I2C. Debian's x86 kernel has spidev built in but no SPI controller and no way to instantiate one from user space
 * (no device tree, no spi-loopback chip), so Lodestone's QEMU test builds this module against the guest kernel's
 * headers and loads it there. Only the wire is fake: the SPI core, spidev and its SPI_IOC_MESSAGE ioctl are the
 * kernel's own.
 *
 * Each chip select holds 128 8-bit registers and decodes the first byte of every message with one of the framings
 * Lodestone's drivers use (module parameter `framing`, one per chip select):
 *   readBit7                   bit 7 read, bits 6..0 register, the address always increments
 *   readBit7AutoIncrementBit6  bit 7 read, bit 6 increment, bits 5..0 register (ST LIS3MDL, LSM9DS1 magnetometer)
 *   readBit7MultiByteBit6      bit 7 read, bit 6 multi-byte, bits 5..0 register (ADXL345)
 * Reads return the registers, writes store into them (registers are preset the same way, by writing
 * /dev/spidevB.C). Like i2c-stub it models no chip behaviour: nothing clears itself, nothing converts.
 *
 * Every chip select gets a spi_device bound to spidev through driver_override: /dev/spidev<bus_num>.<cs>.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/spi/spi.h>
#include <linux/string.h>

#define STUB_MAX_CHIPS 4

static char *framing[STUB_MAX_CHIPS];
static int framing_count;
module_param_array(framing, charp, &framing_count, 0444);
MODULE_PARM_DESC(framing, "register framing per chip select: readBit7, readBit7AutoIncrementBit6 or readBit7MultiByteBit6");
static int bus_num;
module_param(bus_num, int, 0444);
MODULE_PARM_DESC(bus_num, "SPI bus number (default 0: /dev/spidev0.N)");

enum stub_framing { READ_BIT7, READ_BIT7_INCREMENT_BIT6, READ_BIT7_MULTI_BYTE_BIT6 };

struct stub_chip {
	enum stub_framing framing;
	u8 regs[128];
};

struct stub {
	int chips;
	struct stub_chip chip[STUB_MAX_CHIPS];
};

static struct platform_device *stub_pdev;
static struct spi_controller *stub_ctlr;

static int stub_transfer_one_message(struct spi_controller *ctlr, struct spi_message *msg)
{
	struct stub *stub = spi_controller_get_devdata(ctlr);
	struct stub_chip *chip = &stub->chip[msg->spi->chip_select];
	struct spi_transfer *t;
	bool have_command = false, read = false, increment = true;
	u8 reg = 0;

	msg->actual_length = 0;
	list_for_each_entry(t, &msg->transfers, transfer_list) {
		const u8 *tx = t->tx_buf;
		u8 *rx = t->rx_buf;
		unsigned int i;

		for (i = 0; i < t->len; i++) {
			u8 out = tx ? tx[i] : 0, in = 0xff;

			if (!have_command) {
				have_command = true;
				read = out & 0x80;
				switch (chip->framing) {
				case READ_BIT7:
					reg = out & 0x7f;
					increment = true;
					break;
				case READ_BIT7_INCREMENT_BIT6:
				case READ_BIT7_MULTI_BYTE_BIT6:
					reg = out & 0x3f;
					increment = out & 0x40;
					break;
				}
			} else {
				if (read)
					in = chip->regs[reg & 0x7f];
				else
					chip->regs[reg & 0x7f] = out;
				if (increment)
					reg = (reg + 1) & 0x7f;
			}
			if (rx)
				rx[i] = in;
		}
		msg->actual_length += t->len;
	}
	msg->status = 0;
	spi_finalize_current_message(ctlr);
	return 0;
}

static int stub_parse_framing(const char *name, enum stub_framing *out)
{
	if (!strcmp(name, "readBit7"))
		*out = READ_BIT7;
	else if (!strcmp(name, "readBit7AutoIncrementBit6"))
		*out = READ_BIT7_INCREMENT_BIT6;
	else if (!strcmp(name, "readBit7MultiByteBit6"))
		*out = READ_BIT7_MULTI_BYTE_BIT6;
	else
		return -EINVAL;
	return 0;
}

static int __init stub_init(void)
{
	struct stub *stub;
	int i, ret;

	if (framing_count < 1) {
		pr_err("lodestone-spi-stub: give framing=NAME[,NAME...] (1 to %d chip selects)\n", STUB_MAX_CHIPS);
		return -EINVAL;
	}
	stub_pdev = platform_device_register_simple("lodestone-spi-stub", -1, NULL, 0);
	if (IS_ERR(stub_pdev))
		return PTR_ERR(stub_pdev);
	stub_ctlr = spi_alloc_master(&stub_pdev->dev, sizeof(*stub));
	if (!stub_ctlr) {
		ret = -ENOMEM;
		goto err_pdev;
	}
	stub = spi_controller_get_devdata(stub_ctlr);
	stub->chips = framing_count;
	for (i = 0; i < framing_count; i++) {
		ret = stub_parse_framing(framing[i], &stub->chip[i].framing);
		if (ret) {
			pr_err("lodestone-spi-stub: unknown framing '%s'\n", framing[i]);
			goto err_ctlr;
		}
	}
	stub_ctlr->bus_num = bus_num;
	stub_ctlr->num_chipselect = framing_count;
	stub_ctlr->mode_bits = SPI_CPOL | SPI_CPHA;
	stub_ctlr->bits_per_word_mask = SPI_BPW_MASK(8);
	stub_ctlr->min_speed_hz = 1000;
	stub_ctlr->max_speed_hz = 50000000;
	stub_ctlr->transfer_one_message = stub_transfer_one_message;
	ret = spi_register_controller(stub_ctlr);
	if (ret)
		goto err_ctlr;
	for (i = 0; i < framing_count; i++) {
		struct spi_device *spi = spi_alloc_device(stub_ctlr);

		if (!spi) {
			ret = -ENOMEM;
			goto err_registered;
		}
		spi->chip_select = i;
		spi->max_speed_hz = 10000000;
		spi->mode = SPI_MODE_3;
		spi->bits_per_word = 8;
		strscpy(spi->modalias, "spidev", sizeof(spi->modalias));
		spi->driver_override = kstrdup("spidev", GFP_KERNEL);
		ret = spi_add_device(spi);
		if (ret) {
			spi_dev_put(spi);
			goto err_registered;
		}
	}
	pr_info("lodestone-spi-stub: bus %d, %d chip selects\n", bus_num, framing_count);
	return 0;

err_registered:
	spi_unregister_controller(stub_ctlr);
	platform_device_unregister(stub_pdev);
	return ret;
err_ctlr:
	spi_controller_put(stub_ctlr);
err_pdev:
	platform_device_unregister(stub_pdev);
	return ret;
}

static void __exit stub_exit(void)
{
	spi_unregister_controller(stub_ctlr);
	platform_device_unregister(stub_pdev);
}

module_init(stub_init);
module_exit(stub_exit);
MODULE_DESCRIPTION("Test-only SPI controller with register-file chip selects (Lodestone's QEMU test)");
MODULE_LICENSE("GPL");
