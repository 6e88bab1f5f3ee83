// Package store defines the shop's domain types and the storage interfaces the
// services depend on.
package store

import (
	"errors"
	"fmt"
	"time"
)

// ErrNotFound is returned when an entity does not exist.
var ErrNotFound = errors.New("store: not found")

// Product is an item of the catalog. Prices are kept in cents.
type Product struct {
	ID         int    `json:"id"`
	Name       string `json:"name"`
	PriceCents int    `json:"price_cents"`
}

// OrderItem is one line of an order.
type OrderItem struct {
	ProductID int `json:"product_id"`
	Quantity  int `json:"quantity"`
}

// Order is a customer's purchase.
type Order struct {
	ID         int         `json:"id"`
	Customer   string      `json:"customer"`
	Items      []OrderItem `json:"items"`
	TotalCents int         `json:"total_cents"` // computed by the order service
	CreatedAt  time.Time   `json:"created_at"`
}

// NewOrder returns an order stamped with the current time. The store assigns the ID.
func NewOrder(customer string, items []OrderItem, totalCents int) *Order {
	return &Order{
		Customer:   customer,
		Items:      items,
		TotalCents: totalCents,
		CreatedAt:  time.Now().UTC(),
	}
}

// Describe renders a one-line human summary of the order.
func (o Order) Describe() string {
	return fmt.Sprintf("order %d for %s (%s)", o.ID, o.Customer, FormatCents(o.TotalCents))
}

// FormatCents renders an amount in cents as "12.34".
func FormatCents(cents int) string {
	return fmt.Sprintf("%d.%02d", cents/100, cents%100)
}

// ProductReader is the read side of a product store.
type ProductReader interface {
	// ListProducts returns every product ordered by ID.
	ListProducts() []Product
	// GetProduct returns the product with id or ErrNotFound.
	GetProduct(id int) (Product, error)
}

// ProductStore is a ProductReader that can also save products.
type ProductStore interface {
	ProductReader
	// SaveProduct inserts p (assigning its ID) or replaces the stored version.
	SaveProduct(p *Product) error
}

// OrderStore keeps orders.
type OrderStore interface {
	// SaveOrder stores o and assigns its ID.
	SaveOrder(o *Order) error
	// OrdersFor returns the orders of one customer, oldest first.
	OrdersFor(customer string) []Order
}
