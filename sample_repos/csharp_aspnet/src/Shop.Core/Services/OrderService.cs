using Shop.Core.Data;
using Shop.Core.Models;

namespace Shop.Core.Services;

/// <summary>Places orders; prices live in the other part of this class.</summary>
public partial class OrderService : IOrderService
{
    private readonly ProductRepository _products = new();
    private readonly Dictionary<int, OrderStatus> _statuses = new();

    public OrderStatus Place(OrderRequest request)
    {
        var total = Quote(request);
        _statuses[request.ProductId] = total > 0 ? OrderStatus.Pending : OrderStatus.Cancelled;
        return StatusOf(request.ProductId);
    }

    public OrderStatus StatusOf(int id) =>
        _statuses.TryGetValue(id, out var status) ? status : OrderStatus.Pending;
}
