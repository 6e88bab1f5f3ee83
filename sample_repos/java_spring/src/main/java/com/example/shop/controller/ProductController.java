package com.example.shop.controller;

import static com.example.shop.util.PriceUtils.formatCents;

import com.example.shop.model.Product;
import com.example.shop.service.ProductService;
import java.util.List;
import java.util.Map;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * REST API of the product catalogue.
 */
@RestController
@RequestMapping("/api/products")
public class ProductController {

    private final ProductService productService;

    /**
     * Creates the controller.
     *
     * @param productService catalogue operations
     */
    public ProductController(ProductService productService) {
        this.productService = productService;
    }

    /**
     * One product with its formatted price.
     *
     * @param id the product identifier
     * @return the product as a JSON object
     */
    @GetMapping("/{id}")
    public Map<String, String> getProduct(@PathVariable("id") String id) {
        Product product = productService.getProduct(id);
        return Map.of(
                "id", product.getId(),
                "name", product.getName(),
                "price", formatCents(product.getPriceCents()));
    }

    /**
     * Products of a category.
     *
     * @param category the category to list
     * @return the matching products
     */
    @GetMapping
    public List<Product> listProducts(@RequestParam("category") String category) {
        return productService.listByCategory(category);
    }

    /**
     * Adds a product.
     *
     * @param body JSON object with name, category and priceCents
     * @return 201 with the created product
     */
    @PostMapping(value = {"", "/"})
    public ResponseEntity<Product> createProduct(@RequestBody Map<String, String> body) {
        Product created = productService.createProduct(
                body.get("name"), body.get("category"), Long.parseLong(body.get("priceCents")));
        return ResponseEntity.status(201).body(created);
    }

    /**
     * Number of products in the catalogue.
     *
     * @return the count
     */
    @GetMapping(path = "/count")
    public int countProducts() {
        return productService.catalogueSize();
    }
}
