<?php

namespace App\Http\Controllers;

use App\Services\ProductService;

/**
 * HTTP API of the product catalogue.
 */
class ProductController extends Controller
{
    public function __construct(private ProductService $service)
    {
    }

    public function index(): array
    {
        return $this->json($this->service->catalogue());
    }

    public function show(int $id): array
    {
        $product = $this->service->find($id);
        return $product === null ? $this->json(null, 404) : $this->json($product->price()->format());
    }

    public function store(array $input): array
    {
        $product = $this->service->register($input['name'], (int) $input['price']);
        return $this->json($product, 201);
    }
}
