// Package handlers exposes the services over HTTP with JSON bodies.
package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"strconv"

	"example.com/goshop/internal/service"
	"example.com/goshop/internal/store"
)

// Handler serves the shop API.
type Handler struct {
	catalog *service.CatalogService
	orders  *service.OrderService
	logger  *log.Logger
}

// NewHandler returns a Handler using the given services.
func NewHandler(catalog *service.CatalogService, orders *service.OrderService, logger *log.Logger) *Handler {
	return &Handler{catalog: catalog, orders: orders, logger: logger}
}

// Register mounts every route on mux (Go 1.22 method patterns).
func (h *Handler) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /products", h.listProducts)
	mux.HandleFunc("GET /products/{id}", h.getProduct)
	mux.HandleFunc("POST /products", h.createProduct)
	mux.HandleFunc("POST /orders", h.placeOrder)
	mux.HandleFunc("GET /orders", h.listOrders)
	mux.Handle("/metrics", http.HandlerFunc(h.metrics))
	// Liveness probe for the load balancer.
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
}

// createProductRequest is the body of POST /products.
type createProductRequest struct {
	Name       string `json:"name"`
	PriceCents int    `json:"price_cents"`
}

// placeOrderRequest is the body of POST /orders.
type placeOrderRequest struct {
	Customer string            `json:"customer"`
	Items    []store.OrderItem `json:"items"`
}

// listProducts answers GET /products.
func (h *Handler) listProducts(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, h.catalog.List())
}

// getProduct answers GET /products/{id}.
func (h *Handler) getProduct(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil {
		writeError(w, http.StatusBadRequest, "id must be a number")
		return
	}
	p, err := h.catalog.Get(id)
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusNotFound, "no such product")
		return
	}
	writeJSON(w, http.StatusOK, p)
}

// createProduct answers POST /products.
func (h *Handler) createProduct(w http.ResponseWriter, r *http.Request) {
	var req createProductRequest
	if err := decodeJSON(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, "malformed body")
		return
	}
	p, err := h.catalog.Create(req.Name, req.PriceCents)
	if errors.Is(err, service.ErrInvalidProduct) {
		writeError(w, http.StatusUnprocessableEntity, "invalid product")
		return
	}
	h.logger.Printf("created product %d", p.ID)
	writeJSON(w, http.StatusCreated, p)
}

// placeOrder answers POST /orders.
func (h *Handler) placeOrder(w http.ResponseWriter, r *http.Request) {
	var req placeOrderRequest
	if err := decodeJSON(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, "malformed body")
		return
	}
	order, err := h.orders.Place(req.Customer, req.Items)
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, "order rejected")
		return
	}
	writeJSON(w, http.StatusCreated, order)
}

// listOrders answers GET /orders?customer=NAME.
func (h *Handler) listOrders(w http.ResponseWriter, r *http.Request) {
	customer := r.URL.Query().Get("customer")
	writeJSON(w, http.StatusOK, h.orders.History(customer))
}

// metrics prints plain-text counters for scraping.
func (h *Handler) metrics(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintf(w, "goshop_products %d\n", h.catalog.Count())
}

// writeJSON writes v as the JSON response body with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError writes {"error": msg} with the given status.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// decodeJSON decodes the request body into dst, rejecting unknown fields.
func decodeJSON(r *http.Request, dst any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	return dec.Decode(dst)
}
