package store

import (
	"sort"
	"sync"
)

// memBase holds what every in-memory store needs: a lock and an ID sequence.
// It is embedded, so its methods are promoted to the stores.
type memBase struct {
	mu     sync.RWMutex
	nextID int
}

// allocID reserves the next ID. Callers hold the write lock.
func (b *memBase) allocID() int {
	b.nextID++
	return b.nextID
}

// MemoryProductStore is a ProductStore backed by a map.
type MemoryProductStore struct {
	memBase
	products map[int]Product
}

// NewMemoryProductStore returns a store pre-filled with seed products.
func NewMemoryProductStore(seed ...Product) *MemoryProductStore {
	s := &MemoryProductStore{products: make(map[int]Product)}
	for i := range seed {
		_ = s.SaveProduct(&seed[i])
	}
	return s
}

// ListProducts returns all products sorted by ID.
func (s *MemoryProductStore) ListProducts() []Product {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Product, 0, len(s.products))
	for _, p := range s.products {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// GetProduct returns the product with id or ErrNotFound.
func (s *MemoryProductStore) GetProduct(id int) (Product, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.products[id]
	if !ok {
		return Product{}, ErrNotFound
	}
	return p, nil
}

// SaveProduct stores p, assigning an ID to new products.
func (s *MemoryProductStore) SaveProduct(p *Product) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.ID == 0 {
		p.ID = s.allocID()
	}
	s.products[p.ID] = *p
	return nil
}

// MemoryOrderStore is an OrderStore backed by a slice (orders are append-only).
type MemoryOrderStore struct {
	memBase
	orders []Order
}

// NewMemoryOrderStore returns an empty order store.
func NewMemoryOrderStore() *MemoryOrderStore {
	return &MemoryOrderStore{}
}

// SaveOrder appends o with a fresh ID.
func (s *MemoryOrderStore) SaveOrder(o *Order) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	o.ID = s.allocID()
	s.orders = append(s.orders, *o)
	return nil
}

// OrdersFor returns the orders of customer in the order they were placed.
func (s *MemoryOrderStore) OrdersFor(customer string) []Order {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []Order
	for _, o := range s.orders {
		if o.Customer == customer {
			out = append(out, o)
		}
	}
	return out
}
