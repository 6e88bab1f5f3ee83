// Command server runs the goshop HTTP API.
//
// Usage:
//
//	server -addr :8080
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"

	"example.com/goshop/internal/handlers"
	"example.com/goshop/internal/service"
	"example.com/goshop/internal/store"
)

// version is reported by GET /version.
const version = "1.4.0"

// main wires the stores, services and handlers and serves HTTP until it fails.
func main() {
	addr := flag.String("addr", ":8080", "listen address")
	flag.Parse()

	logger := log.New(os.Stderr, "goshop ", log.LstdFlags)
	products := store.NewMemoryProductStore(seedProducts()...)
	catalog := service.NewCatalogService(products)
	orders := service.NewOrderService(catalog, store.NewMemoryOrderStore(),
		service.LogNotifier{Logger: logger})

	h := handlers.NewHandler(catalog, orders, logger)
	mux := http.NewServeMux()
	h.Register(mux)
	mux.HandleFunc("/version", versionHandler)

	srv := &http.Server{Addr: *addr, Handler: handlers.WithLogging(logger, mux)}
	logger.Printf("listening on %s", *addr)
	if err := srv.ListenAndServe(); err != nil {
		logger.Fatal(err)
	}
}

// seedProducts is the demo catalog loaded at start-up.
func seedProducts() []store.Product {
	return []store.Product{
		{Name: "Espresso beans 1kg", PriceCents: 2490},
		{Name: "Milk frother", PriceCents: 3999},
		{Name: "Ceramic cup", PriceCents: 1250},
	}
}

// versionHandler writes the build version as plain text.
func versionHandler(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintln(w, version)
}
