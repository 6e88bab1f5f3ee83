<?php

namespace App\Http\Controllers;

use App\Models\Order;
use App\Services\OrderService;

/**
 * Orders as a resource: list, place, show, cancel.
 */
class OrderController extends Controller
{
    public function __construct(private OrderService $orders)
    {
    }

    public function index(): array
    {
        return $this->json([]);
    }

    public function store(array $input): array
    {
        $order = $this->orders->place((int) $input['product_id']);
        return $this->json($order, $order === null ? 422 : 201);
    }

    public function show(Order $order): array
    {
        return $this->json($order->total()->format());
    }

    public function destroy(Order $order): array
    {
        return $this->json($this->orders->cancel($order));
    }

    public function export(): array
    {
        return $this->json('csv');
    }
}
