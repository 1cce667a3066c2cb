package main

import "syscall"

// renameat2(2)'s number here.
const sysRenameat2 = syscall.SYS_RENAMEAT2
