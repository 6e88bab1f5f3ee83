package handlers

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// ChiRouter serves the reporting API with chi: nested Route blocks prefix their routes.
func (h *Handler) ChiRouter() http.Handler {
	r := chi.NewRouter()
	r.Route("/api/v1", func(r chi.Router) {
		r.Get("/stock", h.stock)
		r.Route("/customers", func(r chi.Router) {
			r.Get("/{name}/history", h.history)
			// Greets a customer by name.
			r.Post("/{name}/hello", func(w http.ResponseWriter, req *http.Request) {
				writeJSON(w, http.StatusOK, map[string]string{"hello": chi.URLParam(req, "name")})
			})
		})
	})
	return r
}

// stock answers GET /api/v1/stock with the number of products.
func (h *Handler) stock(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]int{"products": h.catalog.Count()})
}

// history answers GET /api/v1/customers/{name}/history.
func (h *Handler) history(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, h.orders.History(chi.URLParam(r, "name")))
}
