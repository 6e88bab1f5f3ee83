using Shop.Core.Models;

namespace Shop.Core.Services;

public interface IUserService
{
    User? Find(int id);
    User Register(string name, string email);
    void Deactivate(int id);
    int Count();
}

public interface IOrderService
{
    decimal Quote(OrderRequest request);
    OrderStatus Place(OrderRequest request);
    OrderStatus StatusOf(int id);
}
