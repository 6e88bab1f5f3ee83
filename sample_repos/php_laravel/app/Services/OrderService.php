<?php

namespace App\Services;

use App\Models\Order;

/**
 * Places and cancels orders.
 */
class OrderService
{
    private ProductService $catalogue;

    public function __construct(ProductService $catalogue)
    {
        $this->catalogue = $catalogue;
    }

    public function place(int $productId): ?Order
    {
        $product = $this->catalogue->find($productId);
        if ($product === null) {
            return null;
        }
        $order = new Order(['product_id' => $productId], $product);
        $order->save();
        return $order;
    }

    public function cancel(Order $order): string
    {
        $order->cancel();
        return $order->total()->format();
    }
}
