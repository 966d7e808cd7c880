module github.com/dcl-run/dcl/go

go 1.22
