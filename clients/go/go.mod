module github.com/roomlease/roomlease/clients/go

go 1.24
