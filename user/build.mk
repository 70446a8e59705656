# SPDX-License-Identifier: GPL-2.0-only
# User programs: built position independent, linked into the kernel image.

user-y += user/churn.o
user-y += user/cpufuzz.o
user-y += user/crash.o
user-y += user/detect.o
user-y += user/fuzz.o
user-y += user/hello.o
user-y += user/hostile.o
user-y += user/mm.o
user-y += user/threads.o

USER_OBJS := $(addprefix $(BUILD)/,$(user-y))

# No SSE (the kernel does not save it), no calls out of user/, PIE so
# the code runs at USER_CODE_VA although it is linked into the kernel.
USER_CFLAGS := -std=gnu11 -O2 -g -pipe -march=x86-64 \
               -Wall -Wextra -Werror -Wno-unused-parameter -Wvla \
               -ffreestanding -fPIE -fvisibility=hidden -fno-plt \
               -fno-stack-protector -fno-common -fno-jump-tables \
               -fno-asynchronous-unwind-tables -fno-strict-aliasing \
               -fno-tree-loop-distribute-patterns -fcf-protection=none \
               -mgeneral-regs-only -nostdinc -isystem $(GCC_INC) -Isdk/include -Iinclude \
               -include $(CONFIG_H) -MMD -MP

$(BUILD)/user/%.o: user/%.c $(CONFIG_H)
	@mkdir -p $(dir $@)
	@echo "  CC [U]  $<"
	@$(CC) $(USER_CFLAGS) -c $< -o $@

# The rules user code lives by, checked on the objects: nothing
# undefined (a call out of user/ would land in unmapped memory), no
# writable data (the code is shared read-only), no absolute addresses.
$(BUILD)/user/checked: $(USER_OBJS) user/build.mk
	@echo "  CHECK   user objects"
	@undef=$$($(CROSS_COMPILE)nm -uA $(USER_OBJS)); \
	 if [ -n "$$undef" ]; then \
	   echo "user code calls outside user/:"; echo "$$undef"; exit 1; fi
	@for o in $(USER_OBJS); do \
	   $(CROSS_COMPILE)size -A $$o | awk -v o=$$o \
	     '/^\.(data|bss)/ && $$2 > 0 { print o ": writable " $$1; bad=1 } \
	      END { exit bad }' || exit 1; \
	   $(CROSS_COMPILE)readelf -rW $$o | awk -v o=$$o \
	     '/^Relocation section/ { dbg = ($$3 ~ /debug/) } \
	      !dbg && / R_X86_64_(64|32S|32) / { print o ": absolute " $$0; \
	                                         bad=1 } END { exit bad }' \
	     || exit 1; \
	 done
	@touch $@

-include $(USER_OBJS:.o=.d)
