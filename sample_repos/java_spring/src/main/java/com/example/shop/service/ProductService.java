package com.example.shop.service;

import com.example.shop.model.Product;
import com.example.shop.repository.ProductRepository;
import com.example.shop.util.IdGenerator;
import java.util.List;
import java.util.NoSuchElementException;
import org.springframework.stereotype.Service;

/**
 * Catalogue operations on {@link Product}s.
 */
@Service
public class ProductService {

    private final ProductRepository productRepository;

    /**
     * Constructor injection of the repository.
     *
     * @param productRepository product storage
     */
    public ProductService(ProductRepository productRepository) {
        this.productRepository = productRepository;
    }

    /**
     * Loads a product or fails.
     *
     * @param id the product identifier
     * @return the product
     * @throws NoSuchElementException when no product has this identifier
     */
    public Product getProduct(String id) {
        return productRepository.findById(id)
                .orElseThrow(() -> new NoSuchElementException("no product " + id));
    }

    /**
     * Products of a category.
     *
     * @param category the category
     * @return the products, possibly none
     */
    public List<Product> listByCategory(String category) {
        return this.productRepository.findByCategory(category);
    }

    /**
     * Adds a new product to the catalogue.
     *
     * @param name display name
     * @param category catalogue category
     * @param priceCents unit price in cents
     * @return the stored product with its new identifier
     */
    public Product createProduct(String name, String category, long priceCents) {
        Product product = new Product(IdGenerator.next("prd"), name, category, priceCents);
        return productRepository.save(product);
    }

    /** @return how many products the catalogue holds */
    public int catalogueSize() {
        return productRepository.count();
    }

    /**
     * Changes the unit price of a catalogue product.
     *
     * @param id product identifier
     * @param priceCents the new price in cents
     */
    public void reprice(String id, long priceCents) {
        getProduct(id).changePrice(priceCents);
    }
}
