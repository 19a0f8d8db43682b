#!/bin/sh
# Runs inside the kernel VM: the package test bundle, only the suites that need a real kernel.
LODESTONE_KERNEL_IIO=1 LODESTONE_I2C_STUB_BUS=${STUB_BUS:-0} ./LodestonePackageTests.xctest \
  --testing-library swift-testing --filter KernelI2CStub --filter KernelIIO 2>&1 | grep -v "^◇"
