module Admin
  # Numbers for the back office.
  class ReportsController < ApplicationController
    def show
      render_json(Lending.overdue_count)
    end
  end
end
