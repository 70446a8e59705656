# SPDX-License-Identifier: GPL-2.0-only
# The environments of tools/boot, by --env name.

from bootlib.env_base import Env, KvmEnv
from bootlib.env_grub import GrubEnv
from bootlib.env_nested import HypervNestedEnv, KvmNestedEnv
from bootlib.env_xen import GrubXenEnv, XenEnv
from bootlib.env_xl import XlEnv

ENVS = {e.name: e for e in (Env, KvmEnv, XenEnv, GrubEnv, GrubXenEnv, XlEnv,
                            KvmNestedEnv, HypervNestedEnv)}
