package com.example.shop.controller;

import com.example.shop.service.ProductService;
import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.core.MediaType;

/**
 * JAX-RS health checks, served next to the Spring controllers.
 */
@Path("/health")
@Produces(MediaType.APPLICATION_JSON)
public class HealthResource {

    private final ProductService productService;

    /**
     * Creates the resource.
     *
     * @param productService used to check that storage answers
     */
    public HealthResource(ProductService productService) {
        this.productService = productService;
    }

    /**
     * Liveness: the process is up.
     *
     * @return a constant status document
     */
    @GET
    public String live() {
        return "{\"status\":\"UP\"}";
    }

    /**
     * Readiness: storage answers.
     *
     * @return the status with the catalogue size
     */
    @GET
    @Path("/ready")
    public String ready() {
        int size = productService.catalogueSize();
        return String.format("{\"status\":\"READY\",\"products\":%d}", size);
    }
}
