package com.example.shop.controller;

import com.example.shop.model.Order;
import com.example.shop.service.OrderService;
import com.example.shop.util.PriceUtils;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.RestController;

/**
 * REST API for orders.
 */
@RestController
@RequestMapping(path = "/api/orders")
public class OrderController {

    private final OrderService orderService;

    /**
     * Creates the controller.
     *
     * @param orderService order operations
     */
    public OrderController(OrderService orderService) {
        this.orderService = orderService;
    }

    /**
     * Places an order for the given customer.
     *
     * @param customerId the customer
     * @param quantities units per product identifier
     * @return the order summary
     */
    @PostMapping("/customers/{customerId}")
    public Map<String, Object> placeOrder(@PathVariable String customerId,
                                          @RequestBody Map<String, Integer> quantities) {
        Order order = orderService.placeOrder(customerId, quantities);
        return toSummary(order);
    }

    /**
     * Orders of one customer.
     *
     * @param customerId the customer
     * @return one summary per order
     */
    @GetMapping("/customers/{customerId}")
    public List<Map<String, Object>> listOrders(@PathVariable String customerId) {
        return orderService.ordersOf(customerId).stream()
                .map(this::toSummary)
                .collect(Collectors.toList());
    }

    /**
     * The amount to pay for an order.
     *
     * @param id the order
     * @return 200 with the formatted price, or 404
     */
    @GetMapping("/{id}/price")
    public ResponseEntity<String> price(@PathVariable String id) {
        return orderService.priceOf(id)
                .map(cents -> ResponseEntity.ok(PriceUtils.formatCents(cents)))
                .orElse(ResponseEntity.notFound().build());
    }

    /**
     * Cancels an order.
     *
     * @param id the order
     * @return 204 when cancelled, 409 otherwise
     */
    @RequestMapping(value = "/{id}/cancel", method = RequestMethod.POST)
    public ResponseEntity<Void> cancel(@PathVariable String id) {
        boolean cancelled = orderService.cancel(id);
        return ResponseEntity.status(cancelled ? 204 : 409).build();
    }

    /** Summary shown to API clients. */
    private Map<String, Object> toSummary(Order order) {
        return Map.of(
                "id", order.getId(),
                "status", order.getStatus().name(),
                "total", PriceUtils.formatCents(order.total()));
    }
}
