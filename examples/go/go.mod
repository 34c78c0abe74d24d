module example.com/wordstat

go 1.22
