using Shop.Core.Models;

namespace Shop.Core.Data
{
    /// <summary>In-memory store of entities by id.</summary>
    public abstract class Repository<T> where T : Entity
    {
        protected readonly Dictionary<int, T> Items = new();

        public virtual void Add(T item)
        {
            item.Validate();
            Items[item.Id] = item;
        }

        public T? Get(int id) => Items.TryGetValue(id, out var item) ? item : default;

        public List<T> All() => Items.Values.ToList();
    }

    public interface IUserRepository
    {
        User? Get(int id);
        void Add(User user);
        List<User> All();
    }

    public class UserRepository : Repository<User>, IUserRepository
    {
        public override void Add(User user)
        {
            if (user.Active)
            {
                base.Add(user);
            }
        }
    }

    public class ProductRepository : Repository<Product>
    {
        public Product? ById(int id) => Get(id);
    }
}
