package service

import (
	"errors"
	"fmt"
	"log"

	"example.com/goshop/internal/store"
)

// ErrEmptyOrder is returned when an order has no items.
var ErrEmptyOrder = errors.New("service: order has no items")

// Notifier is told about order events (e-mail, chat, audit log...).
type Notifier interface {
	// Notify reports event for order; errors are logged, never fatal.
	Notify(event string, order store.Order) error
}

// LogNotifier is a Notifier that writes events to a logger.
type LogNotifier struct {
	Logger *log.Logger
}

// Notify logs the event with the order's summary.
func (n LogNotifier) Notify(event string, order store.Order) error {
	n.Logger.Printf("%s: %s", event, order.Describe())
	return nil
}

// OrderService places orders against the catalog.
type OrderService struct {
	catalog  *CatalogService
	orders   store.OrderStore
	notifier Notifier
}

// NewOrderService wires an order service.
func NewOrderService(catalog *CatalogService, orders store.OrderStore, notifier Notifier) *OrderService {
	return &OrderService{catalog: catalog, orders: orders, notifier: notifier}
}

// Place prices the items, stores the order and notifies about it.
func (s *OrderService) Place(customer string, items []store.OrderItem) (store.Order, error) {
	if len(items) == 0 {
		return store.Order{}, ErrEmptyOrder
	}
	total := 0
	for _, item := range items {
		p, err := s.catalog.Get(item.ProductID)
		if err != nil {
			return store.Order{}, fmt.Errorf("item %d: %w", item.ProductID, err)
		}
		total += p.PriceCents * item.Quantity
	}
	order := store.NewOrder(customer, items, total)
	if err := s.orders.SaveOrder(order); err != nil {
		return store.Order{}, fmt.Errorf("save order: %w", err)
	}
	if err := s.notifier.Notify("order.placed", *order); err != nil {
		log.Printf("notify %s: %v", order.Describe(), err)
	}
	return *order, nil
}

// History returns the orders of one customer.
func (s *OrderService) History(customer string) []store.Order {
	return s.orders.OrdersFor(customer)
}
