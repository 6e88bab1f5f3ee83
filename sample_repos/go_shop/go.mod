module example.com/goshop

go 1.22
