// The declaration in include/CFuzzerDriver.h is all there is: libFuzzer defines the function.
#include "CFuzzerDriver.h"
