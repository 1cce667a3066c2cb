package main

// renameat2(2)'s number here: Go 1.19's syscall package names it for arm64 only.
const sysRenameat2 = 316
