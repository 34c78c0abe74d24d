module benchwarden.dev/rewriter

go 1.22
