package handlers

import (
	"net/http"

	"github.com/gorilla/mux"
)

// MuxRouter serves the admin API with gorilla/mux: a path-prefixed subrouter and
// routes restricted to methods with Methods(...).
func (h *Handler) MuxRouter() *mux.Router {
	r := mux.NewRouter()
	admin := r.PathPrefix("/admin").Subrouter()
	reports := admin.PathPrefix("/reports").Subrouter()
	admin.HandleFunc("/catalog/count", h.catalogCount).Methods("GET", "HEAD")
	reports.HandleFunc("/orders/{customer}", h.customerReport).Methods(http.MethodGet)
	return r
}

// catalogCount answers GET /admin/catalog/count.
func (h *Handler) catalogCount(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, h.catalog.Count())
}

// customerReport answers GET /admin/reports/orders/{customer}.
func (h *Handler) customerReport(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, len(h.orders.History(mux.Vars(r)["customer"])))
}
