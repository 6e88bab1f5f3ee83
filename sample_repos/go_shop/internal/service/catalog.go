// Package service holds the shop's business rules. Services depend on the store
// interfaces, never on a concrete store.
package service

import (
	"errors"
	"fmt"
	"strings"

	"example.com/goshop/internal/store"
)

// ErrInvalidProduct is returned for a product with an empty name or a bad price.
var ErrInvalidProduct = errors.New("service: invalid product")

// MaxPriceCents caps product prices (a guard against typos in the admin form).
const MaxPriceCents = 1_000_000

// CatalogService manages the product catalog.
type CatalogService struct {
	products store.ProductStore
}

// NewCatalogService returns a catalog backed by products.
func NewCatalogService(products store.ProductStore) *CatalogService {
	return &CatalogService{products: products}
}

// List returns the whole catalog.
func (s *CatalogService) List() []store.Product {
	return s.products.ListProducts()
}

// Get returns one product.
func (s *CatalogService) Get(id int) (store.Product, error) {
	return s.products.GetProduct(id)
}

// Create validates and stores a new product.
func (s *CatalogService) Create(name string, priceCents int) (store.Product, error) {
	if err := validateProduct(name, priceCents); err != nil {
		return store.Product{}, err
	}
	p := &store.Product{Name: strings.TrimSpace(name), PriceCents: priceCents}
	if err := s.products.SaveProduct(p); err != nil {
		return store.Product{}, fmt.Errorf("save product: %w", err)
	}
	return *p, nil
}

// Count returns the number of products in the catalog.
func (s *CatalogService) Count() int {
	return len(s.products.ListProducts())
}

// validateProduct checks the fields an admin can type in.
func validateProduct(name string, priceCents int) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("%w: empty name", ErrInvalidProduct)
	}
	if priceCents <= 0 || priceCents > MaxPriceCents {
		return fmt.Errorf("%w: price %s out of range", ErrInvalidProduct,
			store.FormatCents(priceCents))
	}
	return nil
}
