module sandbox-executor

go 1.19
