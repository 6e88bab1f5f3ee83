// Package clients calls the other services of the shop over HTTP.
package clients

import (
	"fmt"
	"net/http"
	"os"
)

// pricingBase is where the pricing service (the Java Spring sample) listens; the
// variable names that service, which tells it from others serving the same routes.
var pricingBase = os.Getenv("JAVA_SPRING_URL")

// FetchProduct reads one product of the pricing service.
func FetchProduct(id string) (*http.Response, error) {
	return http.Get(pricingBase + "/api/products/" + id)
}

// CancelOrder asks the pricing service to cancel an order.
func CancelOrder(id string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, fmt.Sprintf("%s/api/orders/%s/cancel", pricingBase, id), nil)
	if err != nil {
		return nil, err
	}
	return http.DefaultClient.Do(req)
}

// Ping checks a partner that is not one of ours.
func Ping() (*http.Response, error) {
	return http.Get("https://status.example.org/v1/ping")
}
