using Shop.Core.Models;

namespace Shop.Core.Services;

public partial class OrderService
{
    public decimal Quote(OrderRequest request)
    {
        var product = _products.ById(request.ProductId);
        return product is null ? 0m : Discounted(product.Price * request.Quantity, request.Quantity);
    }

    private static decimal Discounted(decimal amount, int quantity) =>
        quantity >= 10 ? amount * 0.9m : amount;
}
